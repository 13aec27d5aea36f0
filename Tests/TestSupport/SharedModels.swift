import Foundation

/// Where the shared real model files are: a `shared/models` folder beside the repository (or beside one of
/// its ancestors, for a worktree elsewhere), else `/work/shared/models`.
public enum SharedModels {
    public static let directory: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/models", isDirectory: true)
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: "/work/shared/models", isDirectory: true)
    }()

    /// A model bundle of the shared set: `folder/bundle`.
    public static func url(_ folder: String, _ bundle: String) -> URL {
        directory.appendingPathComponent(folder).appendingPathComponent(bundle)
    }
}
