import Foundation
import LabCore
import ObjectStack

/// The extension side of the `extension` strategy, in `stacklab child extension-import` (hidden): a process of its
/// own that opens the app's store file with persistent history and remote change notifications on, then imports
/// the pods service's pages into it by find-or-create in saves of `batchSize`, as the app's background importer
/// would.
///
/// Lines on standard output: `ready` once the store is open; then, after `go` on standard input, `commit NS NAME`
/// after each save (NS its `LaunchClock` time, NAME the save's smallest pod name), and at the end
/// `done OBJECTS MILLISECONDS` (pods imported, from the first page request to the last commit) or `error MESSAGE`.
public struct ExtensionImport: Sendable {
    /// The author of the extension's history transactions.
    public static let author = "extension"

    let store: StoreKind
    let url: URL
    let service: URL
    let batchSize: Int
    let writeRate: Double
    /// What each save promises across a power cut; nil for the store's default.
    let durability: Durability?

    /// An import into the store of kind `store` at `url` of the pages served at `service`, in saves of `batchSize`
    /// at `writeRate` pods a second (0: as fast as it goes), at `durability` (nil: the store's default).
    public init(
        store: StoreKind, url: URL, service: URL, batchSize: Int, writeRate: Double = 0, durability: Durability? = nil
    ) {
        self.store = store
        self.url = url
        self.service = service
        self.batchSize = batchSize
        self.writeRate = writeRate
        self.durability = durability
    }

    /// Opens the store, says `ready`, waits for `go`, imports, says `done` (or `error`).
    /// - Returns: whether the import succeeded.
    public func run() async -> Bool {
        do {
            let context = try LabStack.openContext(
                store: store, at: url, model: PodModel.make(), name: "extension",
                options: HistoryStoreOptions.all.merging(durability.map { [Durability.option: $0.rawValue] } ?? [:]) {
                    $1
                })
            context.transactionAuthor = Self.author
            context.mergePolicy = .mergeByPropertyObjectTrump
            Self.emit("ready")
            guard readLine() == "go" else { throw LabError(.workloadFailed, "the app did not say go") }
            let (objects, milliseconds) = try await importPages(into: context)
            Self.emit("done \(objects) \(milliseconds)")
            return true
        } catch {
            Self.emit("error " + "\(error)".replacingOccurrences(of: "\n", with: " "))
            return false
        }
    }

    /// Every page, imported and saved in batches; each save announced with its time and smallest name.
    private func importPages(into context: ManagedObjectContext) async throws -> (objects: Int, milliseconds: Double) {
        let client = SpecsClient(baseURL: service)
        defer { client.invalidate() }
        let start = LaunchClock.nowNanoseconds()
        var (number, pages, objects) = (1, 1, 0)
        let batchSize = self.batchSize
        var pace = WritePace(rate: writeRate)
        repeat {
            let page = try client.decode(try await client.data(forPage: number), page: number)
            pages = page.numberOfPages
            // Paced as the app's importer is: each save's specs wait for their turn.
            for specs in pace.parts(of: page.result, batchSize: batchSize) {
                try await pace.waitForSave(of: specs.count)
                let counts = try await context.perform {
                    try PodImporter.importSpecs(specs, batchSize: batchSize, into: context, save: { try $0.save() }) {
                        batch in
                        let smallest = batch.lazy.map(\.name).min() ?? ""
                        Self.emit("commit \(LaunchClock.nowNanoseconds()) \(smallest)")
                    }
                }
                objects += counts.inserted + counts.updated + counts.unchanged
            }
            number += 1
        } while number <= pages
        return (objects, Double(LaunchClock.nowNanoseconds() - start) / 1_000_000)
    }

    /// Writes one protocol line, flushed at once (the app times the commits by them).
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
