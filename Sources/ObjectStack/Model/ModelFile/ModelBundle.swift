import Foundation

/// The versions of an Xcode model on disk and which one is current.
///
/// A `.xcdatamodeld` bundle holds one `.xcdatamodel` folder per version and, usually, a `.xccurrentversion`
/// plist whose `_XCCurrentVersionName` names the current one. That plist may be missing or empty (seen in
/// single-version bundles): then the only version is current, and with several versions the last in version
/// order is (the newest, as a model editor appends versions). A name the bundle does not hold is an error.
/// A bare `.xcdatamodel` folder is one version, current.
struct ModelBundle {
    /// The version folders, in version order (see `versionOrder`).
    let versions: [URL]
    /// The position of the current version in `versions`.
    let currentIndex: Int

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
            versions = [url]
            currentIndex = 0
        case "xcdatamodeld":
            guard isDirectory.boolValue else {
                throw ModelFileError(file: path, reason: "a .xcdatamodeld must be a folder")
            }
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: path).filter {
                    $0.hasSuffix(".xcdatamodel")
                }
            } catch {
                throw ModelFileError(
                    file: path, reason: "cannot list the bundle: \(error.localizedDescription)", cause: error)
            }
            guard !names.isEmpty else {
                throw ModelFileError(file: path, reason: "the bundle holds no .xcdatamodel version")
            }
            let sorted = names.sorted { Self.versionOrder($0, $1) }
            versions = sorted.map { url.appendingPathComponent($0, isDirectory: true) }
            let marker = url.appendingPathComponent(".xccurrentversion")
            if let named = try Self.currentVersionName(in: marker) {
                guard let index = sorted.firstIndex(of: named) else {
                    throw ModelFileError(
                        file: marker.path, element: "key _XCCurrentVersionName",
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

    /// The version `.xccurrentversion` names, or nil when the file is missing, empty or names none.
    private static func currentVersionName(in marker: URL) throws -> String? {
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
        guard let value = dictionary["_XCCurrentVersionName"] else { return nil }
        guard let name = value as? String else {
            throw ModelFileError(
                file: marker.path, element: "key _XCCurrentVersionName", reason: "the value is not a string")
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
        let name = file.hasSuffix(".xcdatamodel") ? String(file.dropLast(".xcdatamodel".count)) : file
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(String(digits.reversed())) else { return (name, nil) }
        let base = name.dropLast(digits.count)
        return (base.hasSuffix(" ") ? String(base.dropLast()) : String(base), number)
    }
}
