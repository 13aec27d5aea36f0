import Foundation
import Testing

/// The concurrency check runs in a child process: a trap there must not take the test runner down.
@Suite("Concurrency debugging")
struct ConcurrencyDebugTests {
    /// The `stacklab` executable built beside the test bundle.
    static var stacklab: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stacklab")
    }

    private func runProbe(debug: Bool) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Self.stacklab
        process.arguments = ["concurrency-probe"]
        var environment = ProcessInfo.processInfo.environment
        environment["STACKLAB_CONCURRENCY_DEBUG"] = debug ? "1" : nil
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("with STACKLAB_CONCURRENCY_DEBUG=1, touching a context off its queue traps naming the context and the call")
    func trapsWhenEnabled() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.stacklab.path), "stacklab is built beside the tests")
        let (status, output) = try runProbe(debug: true)
        #expect(status != 0)
        #expect(output.contains("ObjectStack concurrency violation: insert(_:) on context 'probe context' off its queue"))
    }

    @Test("without the variable nothing is checked")
    func silentWhenDisabled() throws {
        let (status, output) = try runProbe(debug: false)
        #expect(status == 0)
        #expect(output.contains("no trap"))
    }
}
