import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab list`: the scenarios in folders or files, with their matrix sizes.
struct ListCommand<Tool: LabTool>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "list", abstract: "List scenarios and their matrix sizes.")
    }
    @Argument(help: "Folders of scenario files, or scenario files.") var paths: [String] = ["Scenarios"]
    @Flag(help: "Show the sizes --quick runs.") var quick = false
    @Flag(help: "List each workload's concurrency strategies and declared metrics (unit, better, group) instead.")
    var metrics = false

    func run() throws {
        if metrics {
            print(ScenarioListing.declarations(Tool.workloads.all), terminator: "")
            return
        }
        let files: [String]
        do {
            files = try ScenarioListing.files(in: paths)
        } catch {
            throw failure(verb: nil, "\(error)")
        }
        var scenarios: [(scenario: Scenario, file: String)] = []
        var elsewhere: [String] = []
        for file in files {
            do {
                scenarios.append((try ScenarioFile.load(URL(fileURLWithPath: file), workloads: Tool.workloads), file))
            } catch let error as LabError where error.code == .otherProgram {
                // A folder may hold another executable's scenarios: named, not an error.
                elsewhere.append("\(file): \(error.message.split(separator: ": ", maxSplits: 1).last ?? "")")
            } catch {
                throw failure("\(error)")
            }
        }
        print(ScenarioListing.text(scenarios, quick: quick), terminator: "")
        if !elsewhere.isEmpty { print("\n" + elsewhere.joined(separator: "\n")) }
    }
}
