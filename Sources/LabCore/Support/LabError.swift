import Foundation

/// The error the lab throws: a scenario file that does not hold together, a workload that failed, a
/// catalogue that cannot be read, a result file that does not match its scenario.
///
/// For example:
/// ```swift
/// do { _ = try ScenarioFile.load(url) } catch let error as LabError where error.code == .invalidScenario {
///     print(error)  // Scenarios/x.yaml:7: unknown key 'objetcs' in parameters; expected one of …
/// }
/// ```
public struct LabError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case invalidScenario, invalidCatalogue, workloadFailed, serviceFailed, invalidResults, unsupported,
                otherProgram
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }
        public var description: String { value.rawValue }

        /// A scenario file with a syntax error, an unknown key, a wrong type or an impossible value.
        public static let invalidScenario = Code(.invalidScenario)
        /// A catalogue file, the data a workload serves (JSON Lines or TSV), that cannot be read.
        public static let invalidCatalogue = Code(.invalidCatalogue)
        /// A workload that could not finish: see `cause`.
        public static let workloadFailed = Code(.workloadFailed)
        /// A web service of the lab failed to start or answered badly.
        public static let serviceFailed = Code(.serviceFailed)
        /// A result CSV that lacks rows or holds an error cell.
        public static let invalidResults = Code(.invalidResults)
        /// Something this build does not do yet (for example a workload on a model file, until the workloads take any model).
        public static let unsupported = Code(.unsupported)
        /// A scenario naming a workload another program of the lab runs (``WorkloadRegistry/elsewhere``): the
        /// message names the program.
        public static let otherProgram = Code(.otherProgram)
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong and where (file and line for scenario files).
    public let message: String
    /// The underlying error, if any.
    public let cause: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        guard let cause else { return message }
        return "\(message): \(cause)"
    }
}
