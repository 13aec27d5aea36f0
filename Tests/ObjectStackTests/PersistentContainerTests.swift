import Dispatch
import Foundation
import ObjectStack
import Testing

/// The container: loading stores synchronously and in the background, once per store, errors through the
/// completion, and its contexts.
@Suite("Persistent container")
struct PersistentContainerTests {
    private static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)])
        ])
    }

    private static func memoryURL() -> URL { URL(string: "memory://container-\(UUID().uuidString)")! }

    private static func container(urls: [URL] = [memoryURL()], asynchronous: Bool = false) throws -> PersistentContainer
    {
        let container = PersistentContainer(name: "Notes", managedObjectModel: try model())
        container.persistentStoreDescriptions = urls.map { url in
            var description = StoreDescription(type: .inMemory, url: url)
            description.shouldAddStoreAsynchronously = asynchronous
            return description
        }
        return container
    }

    @Test("the default description names an in-memory store after the container")
    func defaultDescription() throws {
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.model())
        let description = try #require(container.persistentStoreDescriptions.first)
        #expect(container.persistentStoreDescriptions.count == 1)
        #expect(description.type == .inMemory && description.url.absoluteString == "memory://Notes")
        #expect(!description.shouldAddStoreAsynchronously)
        #expect(description.shouldMigrateStoreAutomatically && description.shouldInferMappingModelAutomatically)
    }

    @Test("a synchronous load has added the store and called back on the caller's thread before it returns")
    func synchronousLoad() throws {
        let container = try Self.container()
        let caller = pthread_self()
        let calls = LockedValue<[(onCaller: Bool, error: String?)]>([])
        container.loadPersistentStores { _, error in
            calls.withLock { $0.append((pthread_equal(pthread_self(), caller) != 0, error.map { "\($0)" })) }
        }
        let seen = calls.withLock { $0 }
        #expect(seen.count == 1)
        #expect(seen.first?.onCaller == true && seen.first?.error == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
    }

    @Test("an asynchronous load returns at once and calls back later on another thread")
    func asynchronousLoad() async throws {
        let container = try Self.container(asynchronous: true)
        let caller = pthread_self()
        let returned = DispatchSemaphore(value: 0)
        let report: (waitedForReturn: Bool, onCaller: Bool, error: String?) = await withCheckedContinuation {
            continuation in
            container.loadPersistentStores { _, error in
                // Blocks until the caller is past `loadPersistentStores`: a load on the caller's thread would
                // still be inside it, so the wait would time out.
                let waited = returned.wait(timeout: .now() + 30) == .success
                continuation.resume(
                    returning: (waited, pthread_equal(pthread_self(), caller) != 0, error.map { "\($0)" }))
            }
            returned.signal()
        }
        #expect(report.waitedForReturn, "the completion ran before loadPersistentStores returned")
        #expect(!report.onCaller)
        #expect(report.error == nil)
        #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
    }

    @Test("the completion runs once per store description", arguments: [false, true])
    func oncePerStore(asynchronous: Bool) async throws {
        let urls = [Self.memoryURL(), Self.memoryURL(), Self.memoryURL()]
        let container = try Self.container(urls: urls, asynchronous: asynchronous)
        let described: [URL] = await withCheckedContinuation { continuation in
            let seen = LockedValue<[URL]>([])
            container.loadPersistentStores { description, _ in
                let all = seen.withLock { seen -> [URL]? in
                    seen.append(description.url)
                    return seen.count == urls.count ? seen : nil
                }
                if let all { continuation.resume(returning: all) }
            }
        }
        #expect(
            described.sorted { $0.absoluteString < $1.absoluteString }
                == urls.sorted { $0.absoluteString < $1.absoluteString })
        #expect(container.persistentStoreCoordinator.persistentStores.count == 3)
    }

    @Test(
        "a store that fails to load reports its error through the completion, for each way of loading",
        arguments: [false, true])
    func errorsThroughCompletion(asynchronous: Bool) async throws {
        let url = Self.memoryURL()
        let other = try ManagedObjectModel(entities: [
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "body", type: .string)])
        ])
        let holder = PersistentStoreCoordinator(managedObjectModel: other)
        try holder.addPersistentStore(type: .inMemory, at: url)
        var container = try Self.container(urls: [url], asynchronous: asynchronous)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            container.loadPersistentStores { _, error in continuation.resume(returning: error) }
        }
        let storeError = try #require(error as? StoreError)
        #expect(storeError.code == .incompatibleModel && storeError.message.contains("Note"))
        #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)

        container = try Self.container(urls: [Self.memoryURL()], asynchronous: asynchronous)
        container.persistentStoreDescriptions[0].configuration = "Missing"
        let configurationError: (any Error)? = await withCheckedContinuation { continuation in
            container.loadPersistentStores { _, error in continuation.resume(returning: error) }
        }
        #expect((configurationError as? StoreError)?.message.contains("Missing") == true)
    }

    @Test("viewContext is a main-queue context on the coordinator; background contexts are private-queue")
    func contexts() throws {
        let container = try Self.container()
        #expect(container.viewContext.concurrencyType == .mainQueue)
        #expect(container.viewContext.persistentStoreCoordinator === container.persistentStoreCoordinator)
        let background = container.newBackgroundContext()
        #expect(background.concurrencyType == .privateQueue)
        #expect(background.persistentStoreCoordinator === container.persistentStoreCoordinator)
        #expect(background !== container.newBackgroundContext())
    }

    @Test("a save in performBackgroundTask reaches viewContext when it merges automatically")
    func backgroundSaveReachesViewContext() async throws {
        let container = try Self.container()
        container.loadPersistentStores { _, error in #expect(error == nil) }
        let viewContext = container.viewContext
        let noteID: ManagedObjectID = try await viewContext.perform {
            viewContext.automaticallyMergesChangesFromParent = true
            let note = try viewContext.insertNewObject(forEntityName: "Note")
            try note.setValue("draft", forKey: "text")
            try viewContext.save()
            return note.objectID
        }
        let saved: Bool = await withCheckedContinuation { continuation in
            container.performBackgroundTask { context in
                do {
                    let note = try context.existingObject(with: noteID)
                    try note.setValue("final", forKey: "text")
                    _ = try context.insertNewObject(forEntityName: "Note")
                    try context.save()
                    continuation.resume(returning: true)
                } catch {
                    continuation.resume(returning: false)
                }
            }
        }
        #expect(saved)
        // The merge is queued on the main queue during the save, so this block runs after it.
        let seen: (String?, Int) = try await viewContext.perform {
            let note = viewContext.registeredObject(for: noteID)
            return (note?.value(forKey: "text") as? String, viewContext.registeredObjects.count)
        }
        #expect(seen.0 == "final")
        #expect(seen.1 == 2)
    }
}
