import Foundation
import ObjectStack

/// Finds the Xcode mapping models (`.xcmappingmodel`) a project keeps near a model bundle, as Core Data's migration
/// finds those compiled into the app: in the bundle's folder and the folder above it, and in the folders below them
/// (objc.io keeps them beside the bundle, CoreDataPlus in a sibling `MappingModels`, wibosco in
/// `CoreData/Migration/Mappings` beside `CoreData/Model`).
///
/// For example:
/// ```swift
/// let found = MappingModelSearch.mappingModels(near: URL(fileURLWithPath: "Moody.xcdatamodeld"))
/// let step = found.models.first { $0.maps(from: version2, to: version3) }
/// ```
/// The search goes at most four folders deep and skips hidden and build folders. A mapping model that does not
/// read is listed with its error, not dropped silently.
public enum MappingModelSearch {
    /// What the search found.
    public struct Result: Sendable {
        /// The mapping models that read, by path.
        public var models: [MappingModel] = []
        /// The ones that did not, with the reason.
        public var unreadable: [(url: URL, reason: String)] = []
    }

    private static let skipped: Set<String> = [".build", "build", "DerivedData", "Pods", "Carthage", "node_modules"]
    private static let maximumDepth = 4

    /// The mapping models near `bundle` (a `.xcdatamodeld`, or a version inside one).
    public static func mappingModels(near bundle: URL) -> Result {
        var folder = bundle.deletingLastPathComponent()
        if folder.pathExtension == "xcdatamodeld" { folder.deleteLastPathComponent() }
        var urls = Set<URL>()
        for root in [folder.deletingLastPathComponent(), folder] {
            collect(in: root, depth: 0, into: &urls)
        }
        return read(urls)
    }

    /// The mapping models in `folder` and the folders below it, or `folder` itself when it is one
    /// (`stacklab store migrate --mapping DIR`).
    public static func mappingModels(in folder: URL) -> Result {
        var urls = Set<URL>()
        if folder.pathExtension == "xcmappingmodel" {
            urls.insert(folder.standardizedFileURL)
        } else {
            collect(in: folder, depth: 0, into: &urls)
        }
        return read(urls)
    }

    private static func read(_ urls: Set<URL>) -> Result {
        var result = Result()
        for url in urls.sorted(by: { $0.path < $1.path }) {
            do {
                result.models.append(try MappingModel(contentsOf: url))
            } catch {
                result.unreadable.append((url, "\(error)"))
            }
        }
        return result
    }

    private static func collect(in folder: URL, depth: Int, into urls: inout Set<URL>) {
        guard depth <= maximumDepth,
            let items = try? FileManager.default.contentsOfDirectory(
                at: folder, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
        else { return }
        for item in items {
            guard (try? item.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true,
                !skipped.contains(item.lastPathComponent)
            else { continue }
            if item.pathExtension == "xcmappingmodel" {
                urls.insert(item.standardizedFileURL)
            } else if item.pathExtension != "xcdatamodeld" {
                collect(in: item, depth: depth + 1, into: &urls)
            }
        }
    }
}
