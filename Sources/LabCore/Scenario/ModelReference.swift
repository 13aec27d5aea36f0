/// The model a scenario runs on: a built-in one (`builtin:pods`) or a model file path.
public enum ModelReference: Sendable, Hashable, CustomStringConvertible {
    /// The lab's pod model (`PodModel`).
    case builtinPods
    /// An Xcode model file (`.xcdatamodel` or `.xcdatamodeld`), relative to the scenario file.
    case file(String)

    /// The built-in models, by the name written after `builtin:`.
    public static let builtinNames = ["pods"]

    /// Reads a scenario's `model:` field; nil when it names no built-in model and no model file.
    init?(_ text: String) {
        if text.hasPrefix("builtin:") {
            guard text.dropFirst("builtin:".count) == "pods" else { return nil }
            self = .builtinPods
        } else if text.hasSuffix(".xcdatamodel") || text.hasSuffix(".xcdatamodeld") {
            self = .file(text)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .builtinPods: return "builtin:pods"
        case .file(let path): return path
        }
    }
}
