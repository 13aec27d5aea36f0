import ArgumentParser
import Foundation
import LabWorkloads

extension ExitStatus {
    /// The status as ArgumentParser's error, to throw from a verb.
    var code: ExitCode { ExitCode(rawValue) }
}

/// Writes `stacklab VERB: message` (the program's own name) to standard error and returns the status to throw.
func failure(verb: String? = nil, _ message: String, status: ExitStatus = .badInput) -> ExitCode {
    let program = LabCommandLine.programName
    let prefix = verb.map { "\(program) \($0)" } ?? program
    FileHandle.standardError.write(Data("\(prefix): \(message)\n".utf8))
    return status.code
}

/// Writes `stacklab VERB: warning: message` to standard error.
func warn(verb: String, _ message: String) {
    FileHandle.standardError.write(Data("\(LabCommandLine.programName) \(verb): warning: \(message)\n".utf8))
}
