import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file could not be read, in a few words (`no such file`, `permission denied`, `a folder, not a file`, `not
/// UTF-8 text`), from the error Foundation threw: what an error message's "why" says, on the one line that also
/// says what and where, instead of the error's whole debug description.
///
/// For example:
/// ```swift
/// do { text = try String(contentsOf: url, encoding: .utf8) } catch {
///     throw LabError(.invalidScenario, "\(url.path): cannot read the scenario file: \(FileReadFailure(error))")
/// }
/// ```
public struct FileReadFailure: Error, Sendable, CustomStringConvertible {
    /// The reason, in a few words.
    public let description: String

    /// The reason `error` gives, read from its Cocoa or POSIX code where it has one.
    public init(_ error: any Error) {
        let error = error as NSError
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        let posix =
            error.domain == NSPOSIXErrorDomain
            ? error.code : underlying?.domain == NSPOSIXErrorDomain ? underlying?.code : nil
        var isFolder: ObjCBool = false
        if let path = error.userInfo[NSFilePathErrorKey] as? String,
            FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue
        {
            description = "a folder, not a file"
        } else if error.domain == NSCocoaErrorDomain, let reason = Self.cocoaReasons[error.code] {
            description = reason
        } else if let posix, let reason = Self.posixReasons[Int32(posix)] {
            description = reason
        } else if let posix {
            description = String(cString: strerror(Int32(posix))).lowercased()
        } else {
            description = error.localizedDescription
        }
    }

    private static let noSuchFile = "no such file"

    private static let cocoaReasons: [Int: String] = [
        CocoaError.fileReadNoSuchFile.rawValue: noSuchFile,
        CocoaError.fileNoSuchFile.rawValue: noSuchFile,
        CocoaError.fileReadNoPermission.rawValue: "permission denied",
        CocoaError.fileReadInapplicableStringEncoding.rawValue: "not UTF-8 text",
        CocoaError.fileReadCorruptFile.rawValue: "not UTF-8 text",
    ]

    private static let posixReasons: [Int32: String] = [
        ENOENT: noSuchFile, EACCES: "permission denied", EISDIR: "a folder, not a file", ENOTDIR: noSuchFile,
    ]
}
