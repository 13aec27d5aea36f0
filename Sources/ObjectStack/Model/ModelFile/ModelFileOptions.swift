/// How the model-file reader treats what it reads but cannot load exactly as written.
///
/// For example:
/// ```swift
/// let model = try ManagedObjectModel(contentsOf: url, options: .strict)
/// ```
/// By default an XML attribute or element the reader does not know, and a feature it loads only in part
/// (a composite attribute, an expression in a fetch index), is a `ModelFileWarning` with its file and line,
/// and the model loads without it. Strict reading refuses the file at the first such place instead, with a
/// `ModelFileError` carrying the warning's text: what CI wants, so nothing is dropped unnoticed.
public struct ModelFileOptions: Sendable, Hashable {
    /// Whether a warning refuses the file.
    public var isStrict: Bool

    /// Creates options; lenient unless `strict`.
    public init(strict: Bool = false) {
        isStrict = strict
    }

    /// Warnings are collected and the model loads.
    public static let lenient = ModelFileOptions()
    /// The first warning refuses the file.
    public static let strict = ModelFileOptions(strict: true)
}
