import Foundation
import Testing

@testable import LabWorkloads

/// The compare trials' test hook: off unless its variable holds a share, and when on, burns at the import's end the
/// share of the CPU time the import used (CPU time, not wall time: nothing here waits on a clock).
@Suite("The import's slowdown hook")
struct ImportSlowdownTests {
    @Test("the hook is there only for a share between 0 and 10")
    func parsing() {
        #expect(ImportSlowdown(environment: [:]) == nil)
        #expect(ImportSlowdown(environment: [ImportSlowdown.variable: "lots"]) == nil)
        #expect(ImportSlowdown(environment: [ImportSlowdown.variable: "0"]) == nil)
        #expect(ImportSlowdown(environment: [ImportSlowdown.variable: "12"]) == nil)
        #expect(ImportSlowdown(environment: [ImportSlowdown.variable: "0.10"]) != nil)
        #expect(ImportSlowdown.variable == "STACKLAB_TEST_IMPORT_SLOWDOWN")
    }

    @Test("the hook burns on its thread at least the share of the CPU time used since the hook began")
    func burnsTheShare() throws {
        let hook = try #require(ImportSlowdown(environment: [ImportSlowdown.variable: "0.5"]))
        let work = LaunchClock.cpuNanoseconds(CLOCK_THREAD_CPUTIME_ID)
        var sum = 0.0
        for index in 0..<2_000_000 { sum += Double(index).squareRoot() }
        #expect(sum > 0)
        let worked = LaunchClock.cpuNanoseconds(CLOCK_THREAD_CPUTIME_ID) - work
        let before = LaunchClock.cpuNanoseconds(CLOCK_THREAD_CPUTIME_ID)
        hook.burnShare()
        let burnt = LaunchClock.cpuNanoseconds(CLOCK_THREAD_CPUTIME_ID) - before
        // The process's CPU time since the hook began includes this thread's work, so half of it is at least half
        // of the work.
        #expect(burnt >= worked * 0.5)
    }
}
