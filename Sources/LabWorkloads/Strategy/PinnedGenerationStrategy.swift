import Foundation
import LabCore
import ObjectStack

/// The view context pinned to a query generation and moved once a frame: background contexts save to the shared
/// coordinator as usual, but their saves are held and merged at the next frame, together, which moves the pinned
/// context to the then current generation. Between two moves every fetch reads one consistent generation, however
/// many saves land: the app, not the writer, decides when the UI moves.
public struct PinnedGenerationStrategy: StackStrategy {
    public let declaration = ConcurrencyStrategy(
        "pinned-generation", color: "#bcbd22",
        about: "the view context pinned to a query generation (setQueryGenerationFrom(.current)); background "
            + "saves on the shared coordinator are held and merged once a frame, which moves the pinned generation")

    /// Creates the strategy.
    public init() {}

    /// A private context on the shared coordinator, its saves held for the next frame's merge.
    public func newBackgroundContext(on stack: LabStack) throws -> ManagedObjectContext {
        let context = stack.backgroundContext()
        guard let frames = stack.attached(FrameMerger.self) else {
            preconditionFailure("the pinned-generation strategy's frame merger starts with its stack")
        }
        let token = NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveNotification, object: context, queue: nil
        ) { notification in
            frames.hold(notification)
        }
        stack.keep(observer: token)
        return context
    }

    /// Pins the main context to the current generation and starts the frame timer.
    public func didBuild(_ stack: LabStack) throws {
        try stack.pinMainToCurrentGeneration()
        stack.attach(FrameMerger(stack: stack))
    }

    /// The pinned context moves to the seeded store.
    public func didSeed(_ stack: LabStack) throws {
        try stack.pinMainToCurrentGeneration()
    }

    /// Waits for the frame that merges the last save.
    public func catchUp(on stack: LabStack) async throws {
        try await stack.attached(FrameMerger.self)?.waitUntilMerged()
    }
}
