import Foundation

extension PersistentHistoryTransaction {
    /// The entity name of transactions in a history fetch request.
    public static let entityName = "PersistentHistoryTransaction"

    /// A fetch request on transactions, for `PersistentHistoryChangeRequest.fetchRequest`: Core Data's
    /// `NSPersistentHistoryTransaction.fetchRequest`. Its predicate can use `author`, `contextName`, `timestamp`,
    /// `transactionNumber`, `storeID`, `bundleID` and `processID`.
    public static var fetchRequest: FetchRequest<[String: Any]> { FetchRequest(entityName: entityName) }
}

extension PersistentHistoryChange {
    /// The entity name of changes in a history fetch request.
    public static let entityName = "PersistentHistoryChange"

    /// A fetch request on changes, for `PersistentHistoryChangeRequest.fetchRequest`: Core Data's
    /// `NSPersistentHistoryChange.fetchRequest`. Its predicate can use `changeID`, `changeType` (0 insert, 1 update,
    /// 2 delete) and `changedEntity` (the entity's name).
    public static var fetchRequest: FetchRequest<[String: Any]> { FetchRequest(entityName: entityName) }
}

/// A history fetch request's predicate, bound to the transaction or change entity of a small model of its own and
/// evaluated on each transaction or change read.
struct PersistentHistoryFilter {
    /// Which of the two the predicate is about.
    enum Subject {
        case transaction
        case change
    }

    let subject: Subject
    let predicate: BoundPredicate?
    let limit: Int

    /// The model whose two entities describe what a history predicate can name.
    private static let model: ManagedObjectModel = {
        let transaction = EntityDescription(
            name: PersistentHistoryTransaction.entityName,
            attributes: [
                AttributeDescription(name: "author", type: .string),
                AttributeDescription(name: "contextName", type: .string),
                AttributeDescription(name: "timestamp", type: .date),
                AttributeDescription(name: "transactionNumber", type: .integer64),
                AttributeDescription(name: "storeID", type: .string),
                AttributeDescription(name: "bundleID", type: .string),
                AttributeDescription(name: "processID", type: .string),
            ])
        let change = EntityDescription(
            name: PersistentHistoryChange.entityName,
            attributes: [
                AttributeDescription(name: "changeID", type: .integer64),
                AttributeDescription(name: "changeType", type: .integer16),
                AttributeDescription(name: "changedEntity", type: .string),
            ])
        do {
            return try ManagedObjectModel(entities: [transaction, change])
        } catch {
            preconditionFailure("the persistent history filter model does not build: \(error)")
        }
    }()

    /// The filter of a request's fetch request; nil when it has none.
    /// - Throws: `ObjectStackError` for an entity other than the two, or a predicate naming another key.
    init?(_ request: FetchRequest<[String: Any]>?) throws {
        guard let request else { return nil }
        switch request.entityName {
        case PersistentHistoryTransaction.entityName: subject = .transaction
        case PersistentHistoryChange.entityName: subject = .change
        default:
            throw ObjectStackError(
                code: .invalidArgument,
                message: "a history fetch request must be on \(PersistentHistoryTransaction.entityName) or "
                    + "\(PersistentHistoryChange.entityName), not \(request.entityName ?? "no entity")")
        }
        let entity = Self.model.entitiesByName[request.entityName!]!
        predicate = try request.predicate.map { try PredicateBinder(entity: entity).bind($0.node) }
        limit = request.fetchLimit
    }

    /// Whether a transaction passes (always, for a filter on changes).
    func matches(_ transaction: PersistentHistoryTransaction) throws -> Bool {
        guard subject == .transaction, let predicate else { return true }
        return try evaluate(
            predicate,
            [
                transaction.author.map(StoreValue.string) ?? .null,
                transaction.contextName.map(StoreValue.string) ?? .null, .date(transaction.timestamp),
                .integer(transaction.transactionNumber), .string(transaction.storeID), .string(transaction.bundleID),
                .string(transaction.processID),
            ])
    }

    /// Whether a change passes (always, for a filter on transactions).
    func matches(_ change: PersistentHistoryChange) throws -> Bool {
        guard subject == .change, let predicate else { return true }
        return try evaluate(
            predicate,
            [
                .integer(change.changeID), .integer(Int64(change.changeType.rawValue)),
                .string(change.changedEntity.name),
            ]
        )
    }

    private func evaluate(_ predicate: BoundPredicate, _ row: [StoreValue]) throws -> Bool {
        try PredicateEvaluator(resolver: Resolver()).evaluate(predicate, on: row)
    }

    /// Reads a transaction's or change's values by attribute position; history rows have no relationships.
    private struct Resolver: PredicateResolver {
        func row(for objectID: ManagedObjectID) throws -> [StoreValue]? { nil }
        func objectID(of row: [StoreValue]) -> ManagedObjectID {
            ManagedObjectID(
                entity: PersistentHistoryFilter.model.entities[0], storeIdentifier: "history", primaryKey: 0)
        }
        func value(of attribute: AttributeDescription, in row: [StoreValue]) throws -> StoreValue {
            attribute.index < row.count ? row[attribute.index] : .null
        }
        func destination(of relationship: RelationshipDescription, in row: [StoreValue]) throws -> ManagedObjectID? {
            nil
        }
        func destinations(of relationship: RelationshipDescription, in row: [StoreValue]) throws -> [ManagedObjectID] {
            []
        }
    }
}
