import Dispatch
import Foundation

/// A whole stack in one object: a model, a coordinator, its stores, a main-queue `viewContext` and
/// background contexts (Core Data's `NSPersistentContainer`).
///
/// For example, a launch that never blocks the main thread on the store:
/// ```swift
/// let container = PersistentContainer(name: "Pods", managedObjectModel: model, storeType: .sqlite)
/// container.persistentStoreDescriptions[0].shouldAddStoreAsynchronously = true
/// container.loadPersistentStores { description, error in
///     DispatchQueue.main.async { /* fetch the first screen through container.viewContext */ }
/// }
/// ```
/// The default store description names a store after the container: `NAME.sqlite` (or `.lmdb`) in
/// `defaultDirectoryURL()` for a file store type, `memory://NAME` for `.inMemory` (the default type, since
/// ObjectStack itself has only the in-memory store; `import ObjectStackSQLite` and pass `storeType: .sqlite`).
/// - Note: Thread-safe. Set `persistentStoreDescriptions` before `loadPersistentStores`; use `viewContext` on
///   the main queue only.
public final class PersistentContainer: Sendable {
    /// The container's name: the default store's file name.
    public let name: String
    /// The model of every store.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator the stores are added to and every context of the container uses.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The main-queue context on the coordinator, for the UI.
    ///
    /// It merges other contexts' saves only when `automaticallyMergesChangesFromParent` is set (off by default,
    /// as in Core Data).
    public let viewContext: ManagedObjectContext
    private let descriptions: LockedValue<[StoreDescription]>

    /// Creates a container with one default store description; no store is opened until
    /// `loadPersistentStores`.
    /// - Parameters:
    ///   - name: the container's name, which names the default store file (`NAME.sqlite`, `NAME.lmdb`) and the
    ///     in-memory store (`memory://NAME`).
    ///   - managedObjectModel: the model every context of the container uses.
    ///   - storeType: the default description's store type.
    public init(name: String, managedObjectModel: ManagedObjectModel, storeType: StoreType = .inMemory) {
        self.name = name
        self.managedObjectModel = managedObjectModel
        persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        viewContext = ManagedObjectContext(concurrencyType: .mainQueue)
        viewContext.persistentStoreCoordinator = persistentStoreCoordinator
        viewContext.name = "viewContext"
        descriptions = LockedValue([Self.defaultDescription(name: name, type: storeType)])
    }

    /// The stores `loadPersistentStores` opens, in order.
    public var persistentStoreDescriptions: [StoreDescription] {
        get { descriptions.withLock { $0 } }
        set { descriptions.withLock { $0 = newValue } }
    }

    /// Where default store files go: `$XDG_DATA_HOME` when it is set to an absolute path, else
    /// `~/.local/share` (the XDG default), else the current directory. The folder is created when a store
    /// is loaded there.
    public static func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true)
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(
                ".local/share", isDirectory: true)
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    }

    /// The default description: a store named after the container.
    static func defaultDescription(name: String, type: StoreType) -> StoreDescription {
        guard let fileExtension = type.fileOperations?.fileExtension else {
            let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlHostAllowed) ?? "store"
            return StoreDescription(
                type: type, url: URL(string: "memory://\(encoded)") ?? URL(string: "memory://store")!)
        }
        return StoreDescription(
            type: type, url: defaultDirectoryURL().appendingPathComponent("\(name).\(fileExtension)"))
    }

    // MARK: - Contexts

    /// A new private-queue context on the coordinator, for background work.
    public func newBackgroundContext() -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs `block` on a new private-queue context's queue.
    ///
    /// For example:
    /// ```swift
    /// container.performBackgroundTask { context in
    ///     _ = Pod(context: context)
    ///     try? context.save()
    /// }
    /// ```
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }
}
