import ArgumentParser
import Foundation
import Lab

extension ExitStatus {
    /// The status as ArgumentParser's error, to throw from a verb.
    var code: ExitCode { ExitCode(rawValue) }
}

/// Writes `stacklab VERB: message` to standard error and returns the status to throw.
func failure(verb: String? = nil, _ message: String, status: ExitStatus = .badInput) -> ExitCode {
    let prefix = verb.map { "stacklab \($0)" } ?? "stacklab"
    FileHandle.standardError.write(Data("\(prefix): \(message)\n".utf8))
    return status.code
}

/// Writes `stacklab VERB: warning: message` to standard error.
func warn(verb: String, _ message: String) {
    FileHandle.standardError.write(Data("stacklab \(verb): warning: \(message)\n".utf8))
}
