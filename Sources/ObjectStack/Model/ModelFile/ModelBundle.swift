import Foundation

/// The versions of an Xcode model on disk, which of them the reader can read, and which one is current.
///
/// A `.xcdatamodeld` bundle holds one `.xcdatamodel` folder per version and, usually, a `.xccurrentversion`
/// plist whose `_XCCurrentVersionName` names the current one. That plist may be missing or empty (seen in
/// single-version bundles): then the only version is current, and with several versions the last in version
/// order is (the newest, as a model editor appends versions). A name the bundle does not hold is an error.
/// A bare `.xcdatamodel` folder is one version, current.
///
/// A version the reader cannot read is listed with the reason, not refused: a folder in the pre-Xcode-4 layout
/// (binary `elements` and `layout` archives instead of the XML `contents`), a `contents` that is a binary plist,
/// a version that is a file rather than a folder, and a compiled `.mom` (also the versions of a `.momd` folder).
struct ModelBundle {
    /// One version on disk.
    struct Entry {
        /// The version's folder (or compiled file).
        let url: URL
        /// Why the reader cannot read it; nil when its `contents` is XML to read.
        let skipReason: String?

        /// The version's name: its file name without the extension.
        var name: String { url.deletingPathExtension().lastPathComponent }
        /// The `contents` file, as errors name it.
        var contentsURL: URL { url.appendingPathComponent("contents") }
    }

    /// The versions, in version order (see `versionOrder`).
    let entries: [Entry]
    /// The position of the current version in `entries`.
    let currentIndex: Int

    /// The version folders, in version order.
    var versions: [URL] { entries.map(\.url) }

    /// Finds the versions of the model at `url`.
    /// - Throws: `ModelFileError` for a path that is not a model, a bundle without versions, and a
    ///   `.xccurrentversion` that does not parse or names a version the bundle does not hold.
    init(url: URL) throws {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ModelFileError(file: path, reason: "no model file at this path")
        }
        switch url.pathExtension {
        case "xcdatamodel":
            guard isDirectory.boolValue else {
                throw ModelFileError(file: path, reason: "a .xcdatamodel must be a folder")
            }
            entries = [Self.entry(url)]
            currentIndex = 0
        case "mom":
            entries = [Self.entry(url)]
            currentIndex = 0
        case "xcdatamodeld", "momd":
            guard isDirectory.boolValue else {
                throw ModelFileError(file: path, reason: "a .\(url.pathExtension) must be a folder")
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path).filter {
                    $0.hasSuffix(".xcdatamodel") || $0.hasSuffix(".mom")
                }
            } catch {
                throw ModelFileError(
                    file: path, reason: "cannot list the bundle: \(error.localizedDescription)", cause: error)
            }
            guard !names.isEmpty else {
                throw ModelFileError(
                    file: path,
                    reason: url.pathExtension == "momd"
                        ? "the compiled bundle holds no .mom version" : "the bundle holds no .xcdatamodel version")
            }
            let sorted = names.sorted { Self.versionOrder($0, $1) }
            entries = sorted.map {
                Self.entry(url.appendingPathComponent($0, isDirectory: $0.hasSuffix(".xcdatamodel")))
            }
            let marker = url.appendingPathComponent(
                url.pathExtension == "momd" ? "VersionInfo.plist" : ".xccurrentversion")
            let key = url.pathExtension == "momd" ? "NSManagedObjectModel_CurrentVersionName" : "_XCCurrentVersionName"
            if let named = try Self.currentVersionName(in: marker, key: key) {
                let wanted = named.hasSuffix(".xcdatamodel") || url.pathExtension != "momd" ? named : named + ".mom"
                guard let index = sorted.firstIndex(of: wanted) else {
                    throw ModelFileError(
                        file: marker.path, element: "key \(key)",
                        reason:
                            "names version \(named), which the bundle does not hold (it holds: \(sorted.joined(separator: ", ")))"
                    )
                }
                currentIndex = index
            } else {
                currentIndex = sorted.count - 1
            }
        default:
            throw ModelFileError(
                file: path, reason: "not a model file: expected a .xcdatamodel or .xcdatamodeld folder")
        }
    }

    /// A version and whether the reader can read it.
    private static func entry(_ url: URL) -> Entry {
        let manager = FileManager.default
        if url.pathExtension == "mom" {
            return Entry(
                url: url,
                skipReason: "a compiled model (.mom, momc's binary archive): ObjectStack reads the .xcdatamodel source")
        }
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return Entry(
                url: url,
                skipReason: "a file, not a folder: not the layout Xcode 4 and later write (a folder with an XML "
                    + "contents file); open and save the model in a current Xcode to convert it")
        }
        let contents = url.appendingPathComponent("contents")
        if let handle = FileHandle(forReadingAtPath: contents.path) {
            let head = (try? handle.read(upToCount: 8)) ?? Data()
            try? handle.close()
            if head.starts(with: Data("bplist".utf8)) {
                return Entry(url: url, skipReason: "its contents is a binary property list, not Xcode's XML")
            }
            return Entry(url: url, skipReason: nil)
        }
        let files = (try? manager.contentsOfDirectory(atPath: url.path)) ?? []
        if files.contains("elements") || files.contains("layout") {
            return Entry(
                url: url,
                skipReason: "the pre-Xcode-4 layout: binary elements and layout archives instead of the XML contents "
                    + "file; open and save the model in a current Xcode to convert it")
        }
        return Entry(url: url, skipReason: "the version has no readable contents file")
    }

    /// The version `.xccurrentversion` (a `.momd`'s `VersionInfo.plist`) names, or nil when the file is missing,
    /// empty or names none.
    private static func currentVersionName(in marker: URL, key: String) throws -> String? {
        guard let data = FileManager.default.contents(atPath: marker.path) else { return nil }
        guard !data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw ModelFileError(
                file: marker.path, reason: "not a property list: \(error.localizedDescription)", cause: error)
        }
        guard let dictionary = plist as? [String: Any] else {
            throw ModelFileError(file: marker.path, reason: "not a dictionary property list")
        }
        guard let value = dictionary[key] else { return nil }
        guard let name = value as? String else {
            throw ModelFileError(file: marker.path, element: "key \(key)", reason: "the value is not a string")
        }
        return name.isEmpty ? nil : name
    }

    /// Version order: by name with a trailing number compared as a number, the unnumbered version first
    /// (`Moody`, `Moody 2`, … `Moody 10`; `Model`, `Modelv4`).
    static func versionOrder(_ a: String, _ b: String) -> Bool {
        let (baseA, numberA) = split(a)
        let (baseB, numberB) = split(b)
        if baseA != baseB { return baseA < baseB }
        if numberA != numberB { return (numberA ?? -1) < (numberB ?? -1) }
        return a < b
    }

    private static func split(_ file: String) -> (String, Int?) {
        var name = file.hasSuffix(".xcdatamodel") ? String(file.dropLast(".xcdatamodel".count)) : file
        if name.hasSuffix(".mom") { name = String(name.dropLast(".mom".count)) }
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(String(digits.reversed())) else { return (name, nil) }
        let base = name.dropLast(digits.count)
        return (base.hasSuffix(" ") ? String(base.dropLast()) : String(base), number)
    }
}
