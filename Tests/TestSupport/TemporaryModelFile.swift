import Foundation

/// Model files written for one test into a fresh temporary folder: variations of the shared real models,
/// and broken ones (the shared files are read-only).
public struct TemporaryModelFile {
    public let folder: URL

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("modelfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A bare `.xcdatamodel` whose `contents` is `xml`.
    public func model(_ xml: String, name: String = "Test") throws -> URL {
        try model(Data(xml.utf8), name: name)
    }

    /// A bare `.xcdatamodel` whose `contents` are these bytes (not necessarily text).
    public func model(_ contents: Data, name: String = "Test") throws -> URL {
        let url = folder.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try contents.write(to: url.appendingPathComponent("contents"))
        return url
    }

    /// A copy of a shared model bundle, to change.
    public func copy(of source: URL) throws -> URL {
        let url = folder.appendingPathComponent(source.lastPathComponent, isDirectory: true)
        try FileManager.default.copyItem(at: source, to: url)
        return url
    }

    /// The `contents` file of a bare model, as errors name it.
    public func contents(of model: URL) -> String { model.appendingPathComponent("contents").path }

    public func remove() { try? FileManager.default.removeItem(at: folder) }

    /// Wraps entity XML in a `<model>` element as Xcode writes it.
    public static func xml(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="1" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        \(body)
        </model>
        """
    }
}
