import Foundation
import TestSupport
import Testing

/// The concurrency check runs in a child process: a trap there must not take the test runner down.
@Suite("Concurrency debugging")
struct ConcurrencyDebugTests {
    private func runProbe(debug: Bool) throws -> (status: Int32, output: String) {
        try StackLabBinary.run(
            ["child", "concurrency-violation"], environment: ["STACKLAB_CONCURRENCY_DEBUG": debug ? "1" : nil])
    }

    @Test("with STACKLAB_CONCURRENCY_DEBUG=1, touching a context off its queue traps naming the context and the call")
    func trapsWhenEnabled() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: StackLabBinary.url.path), "stacklab is built beside the tests")
        let (status, output) = try runProbe(debug: true)
        #expect(status != 0)
        #expect(
            output.contains("ObjectStack concurrency violation: insert(_:) on context 'probe context' off its queue"))
    }

    @Test("without the variable nothing is checked")
    func silentWhenDisabled() throws {
        let (status, output) = try runProbe(debug: false)
        #expect(status == 0)
        #expect(output.contains("no trap"))
    }
}
