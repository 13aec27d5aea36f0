import Dispatch
import Foundation

/// Measures the main thread's responsiveness as a display would: a timer on the main queue ticks 60 times a
/// second, and every tick records how late it ran.
///
/// With period P = 1/60 s and `gap` the time between two consecutive ticks (and from the last tick to `stop()`):
/// - `maxStallMilliseconds` is the largest `gap − P`: the longest the main queue kept a frame waiting;
/// - hitch time is the sum of `gap − P` over the gaps longer than 1.5 P (at least half a frame late; timer
///   jitter below that is not a hitch), and `hitchMillisecondsPerSecond` is that sum per second of measuring.
///
/// An optional per-tick action runs inside the tick (a UI's per-frame work, such as a first-screen fetch).
/// - Note: Not thread-safe: create, start and stop it on the main actor.
@MainActor
public final class MainThreadMeter {
    /// What a run of the meter measured.
    public struct Report: Sendable {
        public var ticks: Int
        public var seconds: Double
        public var maxStallMilliseconds: Double
        public var hitchMilliseconds: Double
        public var hitchMillisecondsPerSecond: Double { seconds > 0 ? hitchMilliseconds / seconds : 0 }
    }

    /// The tick period: 60 Hz.
    public static let periodNanoseconds: UInt64 = 16_666_667

    /// The tick period in milliseconds.
    static let periodMilliseconds = Double(periodNanoseconds) / 1e6

    private let clock: any LabClock
    private var timer: (any DispatchSourceTimer)?
    private var started = 0.0
    private var last = 0.0
    private var ticks = 0
    private var maxStall = 0.0
    private var hitch = 0.0
    private let onTick: (@MainActor () -> Void)?

    /// Creates a meter reading `clock`; `onTick` runs at every tick after the lateness is recorded.
    public init(clock: any LabClock = SystemClock(), onTick: (@MainActor () -> Void)? = nil) {
        self.clock = clock
        self.onTick = onTick
    }

    /// Starts ticking on the main queue.
    public func start() {
        let now = clock.nowMilliseconds()
        started = now
        last = now
        let timer = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        let period = Self.periodNanoseconds
        timer.schedule(
            deadline: .now() + .nanoseconds(Int(period)), repeating: .nanoseconds(Int(period)), leeway: .nanoseconds(0))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.tick() }
        }
        self.timer = timer
        timer.resume()
    }

    private func tick() {
        record(clock.nowMilliseconds())
        ticks += 1
        onTick?()
    }

    private func record(_ now: Double) {
        let gap = now - last
        last = now
        let period = Self.periodMilliseconds
        guard gap > period else { return }
        let late = gap - period
        maxStall = max(maxStall, late)
        if gap > period + period / 2 { hitch += late }
    }

    /// Stops ticking and reports; the time since the last tick counts as a final gap.
    public func stop() -> Report {
        timer?.cancel()
        timer = nil
        let now = clock.nowMilliseconds()
        record(now)
        return Report(
            ticks: ticks, seconds: (now - started) / 1_000, maxStallMilliseconds: maxStall, hitchMilliseconds: hitch)
    }
}
