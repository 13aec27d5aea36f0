import Foundation

/// The `stacklab` executable built beside the test bundle, run as a real child process.
enum StackLabBinary {
    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stacklab")
    }

    /// Runs `stacklab arguments…` to completion; standard output and error come back together.
    static func run(_ arguments: [String], environment extra: [String: String?] = [:]) throws -> (
        status: Int32, output: String
    ) {
        let (process, output) = try launch(arguments, environment: extra)
        return (process.terminationStatus, output)
    }

    /// Runs `stacklab arguments…` to completion and returns the finished process, to ask how it ended.
    static func launch(_ arguments: [String], environment extra: [String: String?] = [:]) throws -> (
        process: Process, output: String
    ) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process, String(decoding: data, as: UTF8.self))
    }
}
