import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab explain`: the plan the LMDB or in-memory store chooses for a pod fetch.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the plan a store chooses for a pod fetch (index, range, order, rows read).",
        discussion: "Runs the fetch once on a store file made by seed-store (--path) or on a temporary store of "
            + "--objects generated pods, and prints the plan, as SQLite's EXPLAIN QUERY PLAN does. For example: "
            + "stacklab explain --store lmdb --sort name --limit 50")

    @Option(help: ArgumentHelp("The store.", valueName: "lmdb|memory")) var store = StoreKind.lmdb
    @Option(help: "A pod store file (model version 1) to explain on, instead of a temporary one.") var path: String?
    @Option(help: "Pods in the temporary store.") var objects = 10_000
    @Option(help: "The predicate, in the NSPredicate format language (for example \"name IN {'a', 'b'}\").")
    var predicate: String?
    @Option(help: "Sort keys, comma-separated; a leading - sorts descending (for example name,-version).")
    var sort: String?
    @Option(help: "The fetch limit (0 for none).") var limit = 0
    @Option(help: "The fetch offset.") var offset = 0
    @Flag(help: "Explain count(for:) instead of the fetch.") var count = false

    func validate() throws {
        guard store != .sqlite else {
            throw ValidationError("--store must be lmdb or memory (for SQLite, use its EXPLAIN QUERY PLAN)")
        }
        guard objects >= 0, limit >= 0, offset >= 0 else {
            throw ValidationError("--objects, --limit and --offset must be 0 or more")
        }
        if !store.isFile, path != nil { throw ValidationError("--path names a file; an in-memory store has none") }
    }

    func run() throws {
        let probe = FetchPlanProbe(
            store: store, path: path, objects: objects,
            predicate: predicate, sort: sort, limit: limit, offset: offset, counts: count)
        do {
            print(try probe.run())
        } catch {
            throw failure(verb: "explain", "\(error)")
        }
    }
}
