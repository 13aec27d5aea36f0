import ArgumentParser
import Foundation
import Lab

/// `stacklab list`: the scenarios in folders or files, with their matrix sizes.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List scenarios and their matrix sizes.")
    @Argument(help: "Folders of scenario files, or scenario files.") var paths: [String] = ["Scenarios"]
    @Flag(help: "Show the sizes --quick runs.") var quick = false
    @Flag(help: "List each workload's stack designs and declared metrics (unit, better, group) instead.")
    var metrics = false

    func run() throws {
        if metrics {
            print(ScenarioListing.declarations(WorkloadRegistry.lab.all), terminator: "")
            return
        }
        let files: [String]
        do {
            files = try ScenarioListing.files(in: paths)
        } catch {
            throw failure(verb: nil, "\(error)")
        }
        let scenarios = try files.map { (try loadScenario($0), $0) }
        print(ScenarioListing.text(scenarios, quick: quick), terminator: "")
    }
}
