import Foundation

/// The lab's executables (`stacklab`, `stacklab-bench`) built beside the test bundle, run as real child processes.
public enum StackLabBinary {
    /// The `stacklab` executable.
    public static var url: URL { url(of: "stacklab") }

    /// The executable called `program` beside the test bundle.
    /// - Parameter program: `stacklab` or `stacklab-bench`.
    /// - Returns: Its path, whether built or not.
    public static func url(of program: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(program)
    }

    /// Runs `program arguments…` to completion; standard output and error come back together.
    /// - Parameters:
    ///   - arguments: The arguments after the program's name.
    ///   - extra: Environment variables to set (a nil value removes one).
    ///   - program: The executable: `stacklab` unless given.
    /// - Returns: The exit status and the output.
    /// - Throws: When the process cannot start.
    public static func run(
        _ arguments: [String], environment extra: [String: String?] = [:], program: String = "stacklab"
    ) throws -> (status: Int32, output: String) {
        let (process, output) = try launch(arguments, environment: extra, program: program)
        return (process.terminationStatus, output)
    }

    /// Runs `program arguments…` to completion and returns the finished process, to ask how it ended.
    /// - Parameters:
    ///   - arguments: The arguments after the program's name.
    ///   - extra: Environment variables to set (a nil value removes one).
    ///   - program: The executable: `stacklab` unless given.
    /// - Returns: The finished process and its output (standard output and error together).
    /// - Throws: When the process cannot start.
    public static func launch(
        _ arguments: [String], environment extra: [String: String?] = [:], program: String = "stacklab"
    ) throws -> (process: Process, output: String) {
        let process = Process()
        process.executableURL = url(of: program)
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
