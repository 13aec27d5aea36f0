import Dispatch
import Foundation

/// A 60 Hz timer on the main queue that remembers the longest gap between its ticks: how long the main
/// thread was too busy to draw a frame.
final class MainQueueTicker: @unchecked Sendable {
    // @unchecked: every property is touched only on the main queue (the timer's queue and `stop`'s caller).
    private let timer = DispatchSource.makeTimerSource(queue: .main)
    private var last: UInt64
    private(set) var longestGapMs = 0.0

    init(start: UInt64) {
        last = start
        timer.schedule(deadline: .now(), repeating: .nanoseconds(16_666_667), leeway: .milliseconds(1))
        timer.setEventHandler { [unowned self] in self.tick() }
        timer.resume()
    }

    private func tick() {
        let now = LaunchClock.nowNanoseconds()
        longestGapMs = max(longestGapMs, Double(now &- last) / 1_000_000)
        last = now
    }

    /// Stops the timer, counting the gap up to now; call on the main queue.
    func stop() -> Double {
        tick()
        timer.cancel()
        return longestGapMs
    }
}
