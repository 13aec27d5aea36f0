import Dispatch
import Foundation
import ObjectStack
import Synchronization
import Testing

/// Where contexts run their blocks: the main queue for main-queue contexts, a private serial queue otherwise.
@Suite("Context queues")
struct ContextQueueTests {
    @Test("perform from a background thread reaches the main queue")
    func mainQueuePerformFromBackground() async {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        let ranOnMain: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                #expect(!ManagedObjectContext.isOnMainQueue)
                context.perform {
                    continuation.resume(returning: ManagedObjectContext.isOnMainQueue && context.isOnQueue)
                }
            }
        }
        #expect(ranOnMain)
    }

    @Test("performAndWait on the main thread runs the block inline")
    @MainActor
    func mainQueuePerformAndWaitInline() {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        var order: [String] = []
        context.performAndWait { order.append("block") }
        order.append("after")
        #expect(order == ["block", "after"])
        #expect(context.isOnQueue)
    }

    @Test("performAndWait from a background thread waits for the main queue")
    func mainQueuePerformAndWaitFromBackground() async {
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        let onMain: Bool = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let value = context.performAndWait { ManagedObjectContext.isOnMainQueue }
                continuation.resume(returning: value)
            }
        }
        #expect(onMain)
    }

    @Test("a private context runs blocks off the main thread, one at a time, and nests performAndWait")
    func privateQueue() async throws {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        #expect(!context.isOnQueue)
        let nested = context.performAndWait {
            context.isOnQueue && context.performAndWait { context.isOnQueue }
        }
        #expect(nested, "a nested performAndWait runs inline instead of deadlocking")
        let gate = OverlapGate()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    _ = try? await context.perform {
                        gate.enter()
                        usleep(200)
                        gate.leave()
                    }
                }
            }
        }
        #expect(gate.overlaps == 0, "blocks of one context never overlap")
        let value = try await context.perform { ManagedObjectContext.isOnMainQueue ? -1 : 42 }
        #expect(value == 42)
    }

    @Test("async perform passes a thrown error to the caller")
    func asyncPerformThrows() async {
        struct Boom: Error {}
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        await #expect(throws: Boom.self) { try await context.perform { throw Boom() } }
    }
}

/// Counts how often a block starts while another is still running.
final class OverlapGate: Sendable {
    private let running = Atomic<Int>(0)
    private let overlapCount = Atomic<Int>(0)

    func enter() {
        if running.add(1, ordering: .sequentiallyConsistent).newValue > 1 {
            overlapCount.add(1, ordering: .relaxed)
        }
    }

    func leave() {
        running.subtract(1, ordering: .sequentiallyConsistent)
    }

    var overlaps: Int { overlapCount.load(ordering: .relaxed) }
}
