import ArgumentParser
import Foundation
import Lab

/// `stacklab model`: describes an Xcode model file.
struct ModelDescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Describe an Xcode model file (.xcdatamodel or .xcdatamodeld): versions, entities, migrations.")
    @Argument(help: "The model file.") var path: String
    @Flag(help: "Print per-version counts as JSON.") var json = false

    func run() throws {
        let description: ModelDescription
        do {
            description = try ModelDescription(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw failure(verb: "model", "\(error)")
        }
        print(json ? try description.json() : description.text)
    }
}
