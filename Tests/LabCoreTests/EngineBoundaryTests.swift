import Foundation
import Testing

/// LabCore is the lab's engine alone: what it runs, on which stores and strategies, is declared by other modules.
/// These read its sources, so a pod, a store file or a web server creeping back into it fails here.
@Suite("LabCore knows no workload's domain")
struct EngineBoundaryTests {
    /// Every Swift source of LabCore, by path relative to `Sources/LabCore`.
    static let sources: [(path: String, text: String)] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/LabCore")
        let files =
            FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return files.compactMap { url in
            (try? String(contentsOf: url, encoding: .utf8)).map {
                (String(url.path.dropFirst(root.path.count + 1)), $0)
            }
        }.sorted { $0.path < $1.path }
    }()

    @Test("the sources are there to read")
    func sourcesFound() {
        #expect(Self.sources.count > 40)
        #expect(Self.sources.contains { $0.path == "Workload/StoreKind.swift" })
    }

    @Test("no source names a pod, a store file or the web server library")
    func namesNoDomain() throws {
        // `pod` in any case (PodSpec, pods), a store file name (`x.sqlite`, `x.lmdb`) and FlyingFox: each was in
        // LabCore once.
        let forbidden = try Regex("(?i)pod|[a-z0-9_]\\.(sqlite|lmdb)\\b|flyingfox")
        var found: [String] = []
        for source in Self.sources {
            for (number, line) in source.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(forbidden) {
                found.append("\(source.path):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
