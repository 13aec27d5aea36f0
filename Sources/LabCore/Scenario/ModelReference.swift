/// The model a scenario runs on: a built-in one its registry declares (`builtin:NAME`) or a model file path.
public enum ModelReference: Sendable, Hashable, CustomStringConvertible {
    /// A model the workloads build in code, by the name scenario files write after `builtin:` (the registry's
    /// `builtinModels`).
    case builtin(String)
    /// An Xcode model file (`.xcdatamodel` or `.xcdatamodeld`), relative to the scenario file.
    case file(String)

    /// Reads a scenario's `model:` field; nil when it names none of `builtins` and no model file.
    init?(_ text: String, builtins: [String]) {
        if text.hasPrefix("builtin:") {
            let name = String(text.dropFirst("builtin:".count))
            guard builtins.contains(name) else { return nil }
            self = .builtin(name)
        } else if text.hasSuffix(".xcdatamodel") || text.hasSuffix(".xcdatamodeld") {
            self = .file(text)
        } else {
            return nil
        }
    }

    /// `builtin:NAME`, or the model file's path.
    public var description: String {
        switch self {
        case .builtin(let name): return "builtin:\(name)"
        case .file(let path): return path
        }
    }
}
