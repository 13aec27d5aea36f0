import Foundation

extension ResultTable {
    /// The table a run's results make, as its CSV would read back, with the scenario's metric declarations: what
    /// the summary and the budget's rule compare while the run goes on.
    public init(results: [RunResult], scenario: Scenario) {
        // The lab's own CSV text always reads back.
        try! self.init(text: ResultCSV.text(results, scenario: scenario), source: "\(scenario.name) (this run)")
        var record = EnvironmentRecord.reconstructed(for: self, workload: scenario.workload.name, command: [])
        record.metrics = ResultCSV.metricDeclarations(for: scenario)
        environment = record
    }
}
