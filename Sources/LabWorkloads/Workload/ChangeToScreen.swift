import LabCore
import Synchronization

/// Times each commit's way to the first screen. The catalogue is imported newest first (descending names), so
/// every save's pods sort before everything saved earlier and its smallest name goes to the top of the first
/// screen (50 pods by name): a first-screen fetch whose top name is at or before a commit's smallest name shows
/// that commit, or a later one that includes it.
///
/// Times are `LaunchClock` nanoseconds (`CLOCK_MONOTONIC`), the same in every process of the machine, so an
/// extension process's commits compare with the app's fetches.
/// - Note: Thread-safe: commits arrive on saving queues or a pipe's reader, fetches on the main queue.
final class ChangeToScreen: Sendable {
    private struct State {
        /// Commits not shown yet: their smallest name and when they committed.
        var pending: [(name: String, nanoseconds: UInt64)] = []
        var latencies = LatencyRecorder()
        var commits = 0
    }

    private let state = Mutex(State())

    /// A commit whose smallest pod name is `smallestName`, made at `nanoseconds`.
    func committed(smallestName: String, at nanoseconds: UInt64 = LaunchClock.nowNanoseconds()) {
        state.withLock { state in
            state.pending.append((smallestName, nanoseconds))
            state.commits += 1
        }
    }

    /// A first-screen fetch finished at `nanoseconds` with `topName` on top: every commit it shows is timed.
    func shown(topName: String?, at nanoseconds: UInt64 = LaunchClock.nowNanoseconds()) {
        guard let topName else { return }
        state.withLock { state in
            state.pending.removeAll { commit in
                guard topName <= commit.name else { return false }
                let milliseconds = Double(nanoseconds &- min(commit.nanoseconds, nanoseconds)) / 1_000_000
                state.latencies.record(milliseconds: milliseconds)
                return true
            }
        }
    }

    /// Whether every commit so far was shown.
    var allShown: Bool { state.withLock { $0.pending.isEmpty } }

    /// Returns once the first screen showed every commit so far (at the UI's next fetches).
    /// - Throws: `LabError` when it did not within `timeout` seconds.
    func waitUntilShown(timeout: Double = 10) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !allShown {
            guard ContinuousClock.now < deadline else {
                let left = state.withLock { $0.pending.count }
                throw LabError(
                    .workloadFailed,
                    "the first screen did not show \(left) commit(s) within \(Int(timeout)) s of the import's end")
            }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The latencies' percentiles and the number of commits timed.
    var metrics: [Metric: Double] {
        state.withLock { state in
            var metrics: [Metric: Double] = [.screenCommits: Double(state.latencies.count)]
            metrics[.changeToScreenP50Milliseconds] = state.latencies.percentile(50)
            metrics[.changeToScreenP99Milliseconds] = state.latencies.percentile(99)
            return metrics
        }
    }
}
