import ArgumentParser
import Foundation
import LabReliability
import LabWorkloads

/// `stacklab child shared-item`: sets the shared item's title from another process, through a save or a batch
/// update, and exits (the two-process conflict test's other writer).
struct SharedItemChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-item", abstract: "Set the shared item's title from another process (for tests).")
    @Option(help: "sqlite or lmdb.") var store: StoreKind
    @Option(help: "The store file.") var path: String
    @Option(help: "The new title.") var title: String
    @Flag(help: "Through a BatchUpdateRequest instead of a context save.") var batch = false
    @Option(help: "First batch-insert about this many KB of other items (grows the file).") var fillKilobytes = 0

    func validate() throws { try store.requireFile() }

    func run() throws {
        let url = URL(fileURLWithPath: path)
        if fillKilobytes > 0 { try SharedItem.fill(kilobytes: fillKilobytes, store: store, at: url) }
        try SharedItem.setTitle(title, store: store, at: url, batch: batch)
        print("changed")
    }
}
