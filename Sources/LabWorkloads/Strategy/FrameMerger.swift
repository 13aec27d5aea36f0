import Dispatch
import Foundation
import LabCore
import ObjectStack
import Synchronization

/// Holds background saves until the next frame and merges them into a main context pinned to a query generation
/// then, all in one main-queue pass: the app decides when the UI moves, at most once a frame, and between two
/// moves every fetch reads the same generation. Each pass is one entry of the stack's merge log.
/// - Note: Thread-safe: the held saves are behind a mutex; the timer runs on its own queue and merges on the
///   main context's.
final class FrameMerger: Sendable {
    /// One frame at 60 Hz: the UI moves at most this often.
    static let frame = DispatchTimeInterval.nanoseconds(16_666_667)

    private let main: ManagedObjectContext
    private let merges: MergeLog
    private let clock: any LabClock
    private let held = Mutex(HeldSaves())
    /// Passes queued on the main queue and not yet run.
    private let inFlight = Mutex(0)
    // A DispatchSourceTimer is not Sendable: created once in init, then only cancelled.
    nonisolated(unsafe) private let timer: DispatchSourceTimer

    /// Starts the frame timer for `stack`'s main context (stopped when the stack closes).
    init(stack: LabStack) {
        main = stack.main
        merges = stack.merges
        clock = stack.clock
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "StackLab.FrameMerger", qos: .userInitiated))
        timer.schedule(deadline: .now() + Self.frame, repeating: Self.frame, leeway: .milliseconds(1))
        timer.setEventHandler { [weak self] in self?.frameTick() }
        timer.resume()
        stack.onClose { [weak self] in self?.stop() }
    }

    /// Stops the frame timer.
    func stop() {
        timer.cancel()
    }

    /// Holds a background save for the next frame.
    func hold(_ notification: Notification) {
        held.withLock { $0.saves.append(notification) }
    }

    /// On the timer's queue: hands the saves held since the last frame to the main queue, in one pass.
    private func frameTick() {
        let saves = held.withLock { held in
            defer { held.saves = [] }
            return held.saves
        }
        guard !saves.isEmpty else { return }
        inFlight.withLock { $0 += 1 }
        nonisolated(unsafe) let pending = saves
        main.perform { [self] in
            let (_, milliseconds) = clock.measure {
                // Each merge moves the pinned context to the generation that holds the save's rows.
                for save in pending { main.mergeChanges(fromContextDidSave: save) }
            }
            merges.record(milliseconds: milliseconds)
            inFlight.withLock { $0 -= 1 }
        }
    }

    /// Returns once every save held so far was merged (at the frame after it, as the app does).
    func waitUntilMerged() async throws {
        while held.withLock({ !$0.saves.isEmpty }) || inFlight.withLock({ $0 > 0 }) {
            try await Task.sleep(for: .milliseconds(1))
        }
        _ = try? await main.perform { 0 }
    }
}

/// The did-save notifications held for the next frame.
struct HeldSaves: @unchecked Sendable {
    // @unchecked: a did-save notification carries the saving context, which is not Sendable; only its object IDs
    // are read, on the main queue, so handing it across is safe.
    var saves: [Notification] = []
}
