import Foundation
import LabWorkloads
import Testing

/// The import workload's phase timing on a clock the test moves.
@Suite("Import phases on an injected clock")
struct ImportPhasesTests {
    @Test("import phases add the time between readings of their clock, and hand on the next phase's start")
    func importPhases() {
        let clock = ManualClock()
        let phases = ImportPhases(clock: clock)
        let start = phases.now()
        clock.advance(by: 7)
        let next = phases.record(.serviceWait, since: start)
        clock.advance(by: 3)
        phases.record(.decode, since: next)
        phases.measure(.save) { clock.advance(by: 5) }
        #expect(phases.milliseconds(.serviceWait) == 7)
        #expect(phases.milliseconds(.decode) == 3)
        #expect(phases.milliseconds(.save) == 5)
        #expect(phases.totalMilliseconds == 15)
    }
}
