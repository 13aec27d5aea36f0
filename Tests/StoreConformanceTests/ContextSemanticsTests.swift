import Foundation
import ObjectStack
import Testing

/// Core Data's context semantics where ObjectStack once diverged (issue 37, items 1–3): refreshing every
/// object, a child's save into its parent, and `awakeFromInsert` along a chain of contexts.
@Suite("Core Data semantics: contexts")
struct ContextSemanticsTests {
    private func child(of parent: ManagedObjectContext, _ name: String) -> ManagedObjectContext {
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.name = name
        child.parent = parent
        return child
    }

    /// Two saved books; returns their IDs.
    private func savedBooks(_ context: ManagedObjectContext) throws -> (edited: ManagedObjectID, clean: ManagedObjectID)
    {
        try context.performAndWait {
            let edited = Book(context: context)
            edited.title = "v1"
            edited.pages = 10
            let clean = Book(context: context)
            clean.title = "clean v1"
            try context.save()
            return (edited.objectID, clean.objectID)
        }
    }

    // MARK: - 1. refreshAllObjects

    /// Core Data documents `refreshAllObjects()` as refreshing every registered object while preserving unsaved
    /// changes (WWDC 2015, "What's New in Core Data", quoted in the Apple developer forums thread 87856): each
    /// object as `refresh(_:mergeChanges: true)` does, so one with unsaved changes takes the newer committed
    /// values and keeps its own changes on top.
    @Test(
        "refreshAllObjects refreshes objects with unsaved changes too, keeping those changes on top of newer values",
        arguments: StoreType.allCases)
    func refreshAllObjectsMergesChanges(kind: StoreType) throws {
        let stack = try TestStack(kind)
        let context = stack.newContext()
        let (editedID, cleanID) = try savedBooks(context)
        let (edited, clean) = context.performAndWait {
            let edited = context.materialized(editedID, as: Book.self)
            let clean = context.materialized(cleanID, as: Book.self)
            edited.pages = 20  // unsaved
            return (edited, clean)
        }
        let other = stack.newContext()
        try other.performAndWait {
            (other.object(with: editedID) as! Book).title = "v2"
            (other.object(with: cleanID) as! Book).title = "clean v2"
            try other.save()
        }
        try context.performAndWait {
            context.refreshAllObjects()
            #expect(clean.title == "clean v2", "an object without changes reads the newest committed values")
            #expect(edited.title == "v2", "an object with unsaved changes takes the newer committed values")
            #expect(edited.pages == 20, "and keeps its own change on top")
            #expect(edited.hasChanges && Set(edited.changedValues().keys) == ["pages"])
            // Refreshed to the newest version, the object saves without a conflict under the default policy.
            try context.save()
        }
        let reader = stack.newContext()
        reader.performAndWait {
            let book = reader.materialized(editedID, as: Book.self)
            #expect(book.title == "v2" && book.pages == 20, "both changes reached the store")
        }
    }

    // MARK: - 2. A child's save is not judged by merge policies

    /// Core Data documents that a child's `save()` "only updates managed objects in that parent store"
    /// (`NSManagedObjectContext.save()`), and that merge conflicts arise between a context and the coordinator's
    /// row cache, or between that cache and the store (the `NSMergeConflict` reference) — never between a child
    /// and its parent. Observed on Apple's Core Data (issue 37's outside check; Florian Kugler's disassembly in
    /// "Backstage with Nested Managed Object Contexts", 2013: a child's save copies its changes into the parent's
    /// objects): the child's save succeeds whatever the parent changed meanwhile, under every merge policy, and
    /// the parent then holds the child's values for what the child changed (its own other changes stay); the
    /// policies act when the parent saves to the store.
    @Test(
        "a child's save pushes its values into the parent under every merge policy; policies act at the store",
        arguments: StoreType.allCases)
    func childSaveIsNotAConflict(kind: StoreType) throws {
        for policy in [
            MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback,
        ] {
            let stack = try TestStack(kind)
            let root = stack.newContext()
            root.name = "root"
            let (id, _) = try savedBooks(root)
            let child = child(of: root, "child")
            child.mergePolicy = policy
            let book = child.performAndWait { child.materialized(id, as: Book.self) }
            root.performAndWait {
                let parentBook = root.object(with: id) as! Book
                parentBook.title = "Parent"
                parentBook.subtitle = "parent only"
            }
            try child.performAndWait {
                book.title = "Child"
                book.pages = 7
                try child.save()
                #expect(!child.hasChanges, "\(policy): the child's changes were pushed")
            }
            try root.performAndWait {
                let parentBook = root.object(with: id) as! Book
                #expect(parentBook.title == "Child", "\(policy): the parent holds the child's value")
                #expect(parentBook.pages == 7, "\(policy)")
                #expect(parentBook.subtitle == "parent only", "\(policy): the parent's other change stays")
                // Now a conflict with the store: another context saved the same book meanwhile.
                let other = stack.newContext()
                try other.performAndWait {
                    (other.object(with: id) as! Book).subtitle = "from the store"
                    try other.save()
                }
                let error = try #require(throws: ObjectStackError.self) { try root.save() }
                #expect(error.code == .mergeConflict, "\(policy): the root's .error policy acts at the store")
                root.mergePolicy = .mergeByPropertyObjectTrump
                try root.save()
            }
            let reader = stack.newContext()
            reader.performAndWait {
                let saved = reader.materialized(id, as: Book.self)
                #expect(saved.title == "Child" && saved.pages == 7 && saved.subtitle == "parent only", "\(policy)")
            }
        }
    }

    // MARK: - 3. awakeFromInsert along the chain

    /// Core Data calls `awakeFromInsert()` once per object instance, and each context holds its own instance:
    /// observed on Apple's Core Data (issue 37's outside check), an object a child inserts and saves runs
    /// `awakeFromInsert()` in the child and again in the parent when the save reaches it (the parent inserts
    /// its own copy, as Kugler's "Backstage with Nested Managed Object Contexts" describes a child's save), then
    /// takes the child's values; transient values, which a save does not carry, are the parent's own.
    @Test(
        "awakeFromInsert runs once in each context an insert reaches; the child's saved values win",
        arguments: StoreType.allCases)
    func awakeFromInsertInEachContext(kind: StoreType) throws {
        let stack = try TestStack(kind, model: AwakeningNote.makeModel())
        let root = stack.newContext()
        root.name = "root"
        let middle = child(of: root, "middle")
        let leaf = child(of: middle, "leaf")
        let id = try leaf.performAndWait {
            let note = AwakeningNote(context: leaf)
            #expect(note.awokenIn == "leaf" && note.awakenings == 1)
            #expect(note.text == "untitled", "awakeFromInsert set the text")
            note.text = "from the leaf"
            try leaf.save()
            // A second save of the same object is an update, not an insert: nothing awakes again.
            note.text = "edited in the leaf"
            try leaf.save()
            return note.objectID
        }
        try middle.performAndWait {
            let note = try #require(middle.registeredObject(for: id) as? AwakeningNote)
            #expect(note.awokenIn == "middle", "the middle context's own instance was awakened there")
            #expect(note.awakenings == 1, "once, though two saves of the leaf reached it")
            #expect(note.text == "edited in the leaf", "the leaf's values win over what awakeFromInsert set")
            try middle.save()
        }
        try root.performAndWait {
            let note = try #require(root.registeredObject(for: id) as? AwakeningNote)
            #expect(note.awokenIn == "root" && note.awakenings == 1)
            #expect(note.text == "edited in the leaf")
            try root.save()
            #expect(note.awakenings == 1, "saving to the store awakes nothing")
        }
        let reader = stack.newContext()
        try reader.performAndWait {
            let notes = try reader.fetch(FetchRequest<AwakeningNote>(entityName: "Note"))
            #expect(notes.map(\.text) == ["edited in the leaf"])
            #expect(notes.first?.awakenings == nil, "a fetched object is not inserted: no awakeFromInsert")
        }
    }
}

/// A note that records, in transient attributes, which context awakened it and how often.
final class AwakeningNote: ManagedObject {
    @Attribute("text") var text: String
    @Attribute("awokenIn") var awokenIn: String?
    @Attribute("awakenings") var awakenings: Int?

    override func awakeFromInsert() {
        text = "untitled"
        awokenIn = managedObjectContext?.name
        awakenings = (awakenings ?? 0) + 1
    }

    static func makeModel() throws -> ManagedObjectModel {
        let entity = EntityDescription(
            name: "Note", managedObjectClass: AwakeningNote.self,
            attributes: [
                AttributeDescription(name: "text", type: .string, isOptional: false),
                AttributeDescription(name: "awokenIn", type: .string, isTransient: true),
                AttributeDescription(name: "awakenings", type: .integer64, isTransient: true),
            ])
        return try ManagedObjectModel(entities: [entity])
    }
}
