import ArgumentParser
import LabReliability
import LabWorkloads

/// `stacklab child concurrency-violation`: touches a context off its queue, so the tests can see the
/// concurrency check trap in a process of its own.
struct ConcurrencyViolationChildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concurrency-violation", abstract: "Touch a context off its queue (for tests).")

    func run() throws { print(try ConcurrencyViolationProbe.run()) }
}
