import Foundation
import LabWorkloads
import ObjectStack

/// Touches a private-queue context off its queue, on purpose, so a test (in a child process) can check
/// that `STACKLAB_CONCURRENCY_DEBUG=1` traps with a message naming the context and the call.
public enum ConcurrencyViolationProbe {
    /// Inserts an object into a private context from the calling thread, outside `perform`.
    /// - Returns: normally only when concurrency debugging is off.
    public static func run() throws -> String {
        let model = try PodModel.make()
        let context = try LabStack.openContext(store: .memory, at: nil, model: model, name: "probe context")
        let pod = try context.insertNewObject(forEntityName: "Pod")
        try pod.setValue("unchecked", forKey: "name")
        return "no trap: concurrency debugging is off"
    }
}
