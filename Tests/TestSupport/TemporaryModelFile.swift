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

    /// A bundle of five versions: `Notes` in the pre-Xcode-4 layout (binary `elements` and `layout`), `Notes 2`
    /// and `Notes 4` readable, `Notes 3` a binary `contents`, and a compiled `Notes 5.mom`; current `Notes 4`.
    public func partialBundle() throws -> URL {
        let bundle = folder.appendingPathComponent("Notes.xcdatamodeld", isDirectory: true)
        func version(_ name: String) throws -> URL {
            let url = bundle.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        let old = try version("Notes")
        try Data("bplist00\u{1}archived entities".utf8).write(to: old.appendingPathComponent("elements"))
        try Data("bplist00\u{1}diagram".utf8).write(to: old.appendingPathComponent("layout"))
        try Data(TemporaryModelFile.xml("<entity name=\"Note\"/>").utf8).write(
            to: try version("Notes 2").appendingPathComponent("contents"))
        try Data("bplist00\u{0}\u{1}".utf8).write(to: try version("Notes 3").appendingPathComponent("contents"))
        try Data(
            TemporaryModelFile.xml(
                "<entity name=\"Note\"><attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/></entity>"
            ).utf8
        ).write(to: try version("Notes 4").appendingPathComponent("contents"))
        try Data("bplist00 compiled".utf8).write(to: bundle.appendingPathComponent("Notes 5.mom"))
        try Data(Self.currentVersion("Notes 4.xcdatamodel").utf8).write(
            to: bundle.appendingPathComponent(".xccurrentversion"))
        return bundle
    }

    public static func currentVersion(_ name: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(name)</string></dict></plist>
        """
    }
}
