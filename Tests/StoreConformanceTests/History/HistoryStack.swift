import Foundation
import ObjectStack

/// A stack whose store keeps persistent history, on a small model of notes and labels: `Note.title` and `Note.rank`
/// are preserved in tombstones, `Note.body` is not; notes and labels are many-to-many; a folder holds notes.
struct HistoryStack {
    let kind: StoreType
    let model: ManagedObjectModel
    let location: URL
    let coordinator: PersistentStoreCoordinator
    let store: any PersistentStore

    static func makeModel() throws -> ManagedObjectModel {
        let note = EntityDescription(
            name: "Note",
            attributes: [
                AttributeDescription(name: "title", type: .string, preservesValueInHistoryOnDeletion: true),
                AttributeDescription(name: "body", type: .string),
                AttributeDescription(name: "rank", type: .integer64, preservesValueInHistoryOnDeletion: true),
            ],
            relationships: [
                RelationshipDescription(name: "labels", destination: "Label", inverse: "notes", isToMany: true),
                RelationshipDescription(name: "folder", destination: "Folder", inverse: "notes"),
            ])
        let label = EntityDescription(
            name: "Label", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "notes", destination: "Note", inverse: "labels", isToMany: true)
            ])
        let folder = EntityDescription(
            name: "Folder", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(name: "notes", destination: "Note", inverse: "folder", isToMany: true)
            ])
        return try ManagedObjectModel(entities: [note, label, folder])
    }

    /// A stack on a fresh location (or `location`), history tracking on unless `tracking` is false.
    init(
        _ kind: StoreType, model: ManagedObjectModel? = nil, location: URL? = nil, tracking: Bool = true,
        options: [String: String] = [:]
    ) throws {
        self.kind = kind
        self.model = try model ?? Self.makeModel()
        self.location = location ?? kind.newLocation()
        coordinator = PersistentStoreCoordinator(managedObjectModel: self.model)
        var description = StoreDescription(type: kind, url: self.location, options: options)
        description.persistentHistoryTracking = tracking
        store = try coordinator.addPersistentStore(type: kind, at: self.location, options: description.options)
    }

    /// A second stack on the same store: its own coordinator and store instance.
    func separateStack(tracking: Bool = true) throws -> HistoryStack {
        try HistoryStack(kind, model: model, location: location, tracking: tracking)
    }

    func newContext(author: String? = nil, name: String? = nil) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator
        context.transactionAuthor = author
        context.name = name
        return context
    }

    /// Every transaction after `token`, with changes.
    func history(after token: PersistentHistoryToken? = nil) throws
        -> [PersistentHistoryTransaction]
    {
        let context = newContext()
        return try context.performAndWait {
            try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)).transactions
        }
    }
}

extension ManagedObjectContext {
    /// Inserts a note and returns it.
    @discardableResult
    func insertNote(_ title: String?, body: String? = nil, rank: Int64? = nil) throws -> ManagedObject {
        let note = try insertNewObject(forEntityName: "Note")
        try note.setValue(title, forKey: "title")
        try note.setValue(body, forKey: "body")
        try note.setValue(rank, forKey: "rank")
        return note
    }
}

extension PersistentHistoryTransaction {
    /// The changes as (type, entity, key) triples, for comparing.
    var summary: [String] {
        (changes ?? []).map { "\($0.changeType) \($0.changedObjectID.entityName) \($0.changedObjectID.key)" }
    }
}
