import ArgumentParser
import Foundation
import LabWorkloads

/// `stacklab declare`: adds the workload's metric and strategy declarations to the sidecar of a CSV written before
/// the lab recorded them, so `compare`, `report` and `gate` judge its columns as the workload means them.
struct DeclareCommand<Tool: LabTool>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "declare",
            abstract: "Add the workload's metric and strategy declarations to result CSVs' .env.json sidecars.",
            discussion: """
                For a CSV written before the lab recorded declarations: the CSV's workload (its sidecar's, else its \
                workload column) declares its metric columns (unit, which way is better, group); a column it does \
                not declare takes another workload's declaration of the same name (an old CSV has every workload's \
                columns), else stays undeclared and is named. Nothing else in the sidecar changes, and the CSV is \
                not touched. --create writes a sidecar for a CSV that has none, with the machine and commit unknown. \
                Exit status: 0 written, 2 bad input.
                """)
    }
    @Argument(help: "Result CSVs.") var files: [String]
    @Flag(help: "Write a sidecar for a CSV that has none (environment unknown).") var create = false

    func run() throws {
        let registry = Tool.workloads
        for file in files {
            let url = URL(fileURLWithPath: file)
            let table: ResultTable
            do {
                table = try ResultTable(contentsOf: url)
            } catch let error as CompareError {
                throw failure(verb: "declare", "\(error)")
            }
            if let problem = table.sidecarProblem { throw failure(verb: "declare", problem) }
            let name =
                table.environment?.workload ?? table.rows.first.flatMap { table.value("workload", in: $0) } ?? ""
            guard let workload = registry[name] else {
                throw failure(
                    verb: "declare",
                    "\(file): workload '\(name)' is not one of the lab's (\(registry.names.joined(separator: ", ")))")
            }
            let sidecar = EnvironmentRecord.sidecar(of: url)
            guard
                let record = table.environment
                    ?? (create
                        ? EnvironmentRecord.reconstructed(
                            for: table, workload: name, command: ["stacklab", "declare", "--create", file]) : nil)
            else {
                throw failure(
                    verb: "declare", "\(file): no sidecar \(sidecar.lastPathComponent); --create writes one")
            }
            let others = registry.all.filter { $0.name != name }
            let (declared, undeclared) = record.declaring(
                columns: table.metricColumns, workload: workload, others: others)
            try declared.write(to: sidecar)
            let count = declared.metrics?.count ?? 0
            print(
                "\(sidecar.path): \(count) metrics declared"
                    + (undeclared.isEmpty ? "" : "; undeclared: \(undeclared.joined(separator: ", "))"))
        }
    }
}
