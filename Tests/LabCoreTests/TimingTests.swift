import Foundation
import LabCore
import Testing

/// The lab's timing logic on a clock the test moves: no test here depends on how fast the machine is.
@Suite("Timing logic on an injected clock")
struct TimingTests {
    /// `MainThreadMeter.periodNanoseconds` (60 Hz) in milliseconds.
    static let period = 16.666_667

    @Test(
        "the main-thread meter counts a frame kept waiting as a stall and a hitch; a gap under 1.5 frames is no hitch")
    @MainActor
    func mainThreadMeter() throws {
        // Synchronous on the main actor, so the meter's timer cannot tick in between: only the clock moves.
        let clock = ManualClock(start: 5_000)
        let meter = MainThreadMeter(clock: clock)
        meter.start()
        clock.advance(by: 100)
        let stalled = meter.stop()
        #expect(stalled.ticks == 0)
        #expect(abs(stalled.seconds - 0.1) < 1e-9)
        #expect(abs(stalled.maxStallMilliseconds - (100 - Self.period)) < 1e-6)
        #expect(abs(stalled.hitchMilliseconds - (100 - Self.period)) < 1e-6)
        #expect(abs(stalled.hitchMillisecondsPerSecond - (100 - Self.period) * 10) < 1e-6)

        let short = MainThreadMeter(clock: clock)
        short.start()
        clock.advance(by: 20)
        let late = short.stop()
        #expect(abs(late.maxStallMilliseconds - (20 - Self.period)) < 1e-6, "late, by a little")
        #expect(late.hitchMilliseconds == 0, "less than half a frame late is jitter, not a hitch")
    }

    @Test("a clock's measure returns the body's value and the time it moved")
    func measure() {
        let clock = ManualClock(start: 1)
        let (value, milliseconds) = clock.measure { () -> Int in
            clock.advance(by: 2.5)
            return 42
        }
        #expect(value == 42 && milliseconds == 2.5)
        #expect(clock.milliseconds(since: 1) == 2.5)
    }
}
