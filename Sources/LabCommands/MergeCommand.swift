import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab merge`: joins the CSVs of `run --shard K/N` into one.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the CSVs of `run --shard K/N` into one CSV and sidecar.",
        discussion: """
            Each CSV's .env.json sidecar must sit beside it. The shards must come from one scenario, one commit \
            and one N; every shard 1…N must be there once, no cell and repetition twice, and every cell of \
            the matrix present. Exit status: 0 merged, 2 bad input (nothing is written).
            """)
    @Argument(help: "The shards' CSVs.") var files: [String]
    @Option(help: "The merged CSV; its sidecar is written beside it.") var out: String

    func run() throws {
        do {
            let (csv, environment) = try ShardMerge(files: files).merged()
            let url = URL(fileURLWithPath: out)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(csv.utf8).write(to: url, options: .atomic)
            try environment.write(to: url.deletingPathExtension().appendingPathExtension("env.json"))
            print("merged \(files.count) shard(s) into \(out)")
        } catch let error as ShardMerge.MergeError {
            throw failure(verb: "merge", "\(error)")
        } catch let error as CompareError {
            throw failure(verb: "merge", "\(error)")
        }
    }
}
