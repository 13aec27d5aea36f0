/// A generation of a context's stores, as `ManagedObjectContext.setQueryGenerationFrom(_:)` takes it: Core Data's
/// `NSQueryGenerationToken`.
///
/// Opaque and only equatable: `.current` asks for the stores' generation at the moment it is set; a context's
/// `queryGenerationToken` names the generation it is pinned to, and another context given that token reads the same
/// generation, for as long as some context still holds it.
///
/// For example:
/// ```swift
/// try context.setQueryGenerationFrom(.current)
/// // Fetches and faults now see the store as it was; saves elsewhere are not seen until the context saves,
/// // resets, refreshes all objects or is given another token.
/// try other.setQueryGenerationFrom(context.queryGenerationToken)
/// ```
public final class QueryGenerationToken: Sendable, Hashable, CustomStringConvertible {
    /// The stores' current generation, pinned when the token is set.
    public static let current = QueryGenerationToken(generation: nil)

    /// The generation the token names (nil for `.current`); weak, so a token alone does not keep a generation.
    private let generation: WeakGeneration?

    init(generation: QueryGeneration?) {
        self.generation = generation.map(WeakGeneration.init)
    }

    /// Whether this is `.current`.
    var isCurrent: Bool { generation == nil }

    /// The generation, while some context still holds it.
    var heldGeneration: QueryGeneration? { generation?.value.withLock { $0.value } }

    public static func == (lhs: QueryGenerationToken, rhs: QueryGenerationToken) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    public var description: String { isCurrent ? "QueryGenerationToken.current" : "QueryGenerationToken(pinned)" }

    /// A weak reference in a lock, so the token is Sendable.
    final class WeakGeneration: Sendable {
        struct Box { weak var value: QueryGeneration? }
        let value: LockedValue<Box>
        init(_ generation: QueryGeneration) { value = LockedValue(Box(value: generation)) }
    }
}

/// One pinned generation of a coordinator's stores: a reader per store, alive while a context holds it.
final class QueryGeneration: Sendable {
    /// The readers, by store identifier.
    let readers: [String: any StoreGenerationReader]
    /// The coordinator whose stores these are.
    let coordinatorID: ObjectIdentifier
    private let tokenBox = LockedValue<QueryGenerationToken?>(nil)

    /// Pins the current generation of every store of `coordinator`.
    /// - Throws: `ObjectStackError.invalidArgument` for a store that cannot pin a generation, `.storeFailed` when a
    ///   store fails to.
    init(pinning coordinator: PersistentStoreCoordinator) throws {
        var readers: [String: any StoreGenerationReader] = [:]
        for store in coordinator.persistentStores {
            guard let pinning = store as? any StoreGenerationPinning else {
                throw ObjectStackError(
                    code: .invalidArgument, message: "the \(store.type) store at \(store.url) has no query generations")
            }
            do {
                readers[store.identifier] = try coordinator.withStoreAccess { try pinning.pinGeneration() }
            } catch {
                throw ObjectStackError(
                    code: .storeFailed, message: "could not pin a generation of the \(store.type) store: \(error)",
                    cause: error)
            }
        }
        self.readers = readers
        coordinatorID = ObjectIdentifier(coordinator)
    }

    /// The token naming this generation (one per generation, so contexts sharing it get equal tokens).
    var token: QueryGenerationToken {
        tokenBox.withLock { token in
            if let token { return token }
            let made = QueryGenerationToken(generation: self)
            token = made
            return made
        }
    }

    func reader(for storeIdentifier: String) throws -> any StoreGenerationReader {
        guard let reader = readers[storeIdentifier] else {
            throw StoreError(code: .closed, message: "the store \(storeIdentifier) was not in the pinned generation")
        }
        return reader
    }
}
