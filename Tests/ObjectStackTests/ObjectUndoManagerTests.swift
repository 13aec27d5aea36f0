import Foundation
import ObjectStack
import Testing

/// Undoable state for the manager's tests: a text and its history of edits, each registering its undo.
private final class Document {
    let undo: ObjectUndoManager
    private(set) var text = ""

    init(_ undo: ObjectUndoManager) {
        self.undo = undo
    }

    /// Sets the text and registers the change back (which, while undoing, is the redo).
    func set(_ new: String) {
        let old = text
        text = new
        undo.registerUndo(withTarget: self) { document in document.set(old) }
    }
}

/// Collects the notifications one undo manager posts, by name.
private final class UndoNotes: @unchecked Sendable {
    // @unchecked: `names` is only touched under `lock`.
    private let lock = NSLock()
    private var names: [Notification.Name] = []
    private var tokens: [any NSObjectProtocol] = []

    init(_ manager: ObjectUndoManager) {
        let watched: [Notification.Name] = [
            ObjectUndoManager.checkpointNotification, ObjectUndoManager.didOpenUndoGroupNotification,
            ObjectUndoManager.willCloseUndoGroupNotification, ObjectUndoManager.didCloseUndoGroupNotification,
            ObjectUndoManager.willUndoChangeNotification, ObjectUndoManager.didUndoChangeNotification,
            ObjectUndoManager.willRedoChangeNotification, ObjectUndoManager.didRedoChangeNotification,
        ]
        for name in watched {
            tokens.append(
                NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) {
                    [unowned self] note in
                    self.lock.withLock { self.names.append(note.name) }
                })
        }
    }

    deinit {
        tokens.forEach(NotificationCenter.default.removeObserver)
    }

    var all: [Notification.Name] { lock.withLock { names } }

    func count(_ name: Notification.Name) -> Int { all.filter { $0 == name }.count }
}

/// The undo manager alone, with Foundation's `UndoManager` semantics.
@Suite("Undo manager")
struct ObjectUndoManagerTests {
    @Test("undo performs the last group's operations, redo the undo's, and each registers its inverse")
    func undoRedo() {
        let undo = ObjectUndoManager()
        let document = Document(undo)
        undo.beginUndoGrouping()
        document.set("a")
        undo.endUndoGrouping()
        undo.beginUndoGrouping()
        document.set("ab")
        undo.endUndoGrouping()
        // The event group opened with the first group is still open, holding both: one step.
        #expect(undo.groupingLevel == 1)
        undo.undo()
        #expect(document.text == "")
        #expect(undo.groupingLevel == 0)
        #expect(!undo.canUndo)
        #expect(undo.canRedo)
        undo.redo()
        #expect(document.text == "ab")
        #expect(undo.canUndo && !undo.canRedo)
    }

    @Test("each event (closed with processPendingChanges in a context, here by hand) is one step")
    func steps() {
        let undo = ObjectUndoManager()
        let document = Document(undo)
        for text in ["a", "ab", "abc"] {
            document.set(text)
            #expect(undo.groupingLevel == 1)
            undo.endUndoGrouping()
        }
        undo.undo()
        #expect(document.text == "ab")
        undo.undo()
        #expect(document.text == "a")
        undo.redo()
        #expect(document.text == "ab")
        // A new change clears what could be redone.
        undo.redo()
        #expect(document.text == "abc")
        undo.undo()
        document.set("x")
        undo.endUndoGrouping()
        #expect(!undo.canRedo)
        undo.undo()
        #expect(document.text == "ab")
    }

    @Test("with groupsByEvent off, groups are explicit; nested groups undo with their parent")
    func explicitGroups() {
        let undo = ObjectUndoManager()
        undo.groupsByEvent = false
        let document = Document(undo)
        undo.beginUndoGrouping()
        document.set("a")
        undo.beginUndoGrouping()
        document.set("ab")
        #expect(undo.groupingLevel == 2)
        undo.endUndoGrouping()
        document.set("abc")
        undo.endUndoGrouping()
        #expect(undo.groupingLevel == 0)
        undo.undo()
        #expect(document.text == "")
        undo.redo()
        #expect(document.text == "abc")
    }

    @Test("registration can be disabled (nesting) and removeAllActions enables it again")
    func disabling() {
        let undo = ObjectUndoManager()
        let document = Document(undo)
        undo.disableUndoRegistration()
        undo.disableUndoRegistration()
        document.set("hidden")
        undo.enableUndoRegistration()
        #expect(!undo.isUndoRegistrationEnabled)
        document.set("still hidden")
        #expect(!undo.canUndo)
        undo.enableUndoRegistration()
        #expect(undo.isUndoRegistrationEnabled)
        undo.disableUndoRegistration()
        undo.removeAllActions()
        #expect(undo.isUndoRegistrationEnabled)
        document.set("seen")
        #expect(undo.canUndo)
        undo.undo()
        #expect(document.text == "still hidden")
    }

    @Test("levelsOfUndo keeps the newest groups; removeAllActions(withTarget:) drops one target's")
    func limits() {
        let undo = ObjectUndoManager()
        let document = Document(undo)
        let other = Document(undo)
        undo.levelsOfUndo = 2
        for text in ["a", "b", "c"] {
            document.set(text)
            undo.endUndoGrouping()
        }
        other.set("other")
        undo.endUndoGrouping()
        undo.removeAllActions(withTarget: other)
        undo.undo()
        #expect(document.text == "b")
        #expect(other.text == "other")
        #expect(!undo.canUndo)
    }

    @Test("action names follow the group to the redo stack; menu titles; discardable groups")
    func names() {
        let undo = ObjectUndoManager()
        let document = Document(undo)
        #expect(undo.undoMenuItemTitle == "Undo")
        document.set("a")
        undo.setActionName("Typing")
        undo.setActionIsDiscardable(true)
        #expect(undo.undoActionName == "Typing")
        undo.endUndoGrouping()
        #expect(undo.undoMenuItemTitle == "Undo Typing")
        #expect(undo.undoActionIsDiscardable)
        undo.undo()
        #expect(undo.redoActionName == "Typing")
        #expect(undo.redoMenuItemTitle == "Redo Typing")
        #expect(undo.redoMenuTitle(forUndoActionName: "") == "Redo")
        #expect(undo.undoActionName == "")
    }

    @Test("isUndoing and isRedoing are true while the operations run")
    func activity() {
        let undo = ObjectUndoManager()
        var seen: [String] = []
        let target = Document(undo)
        undo.registerUndo(withTarget: target) { document in
            seen.append("undoing \(document.undo.isUndoing) \(document.undo.isRedoing)")
            document.undo.registerUndo(withTarget: document) { document in
                seen.append("redoing \(document.undo.isUndoing) \(document.undo.isRedoing)")
            }
        }
        undo.undo()
        undo.redo()
        #expect(seen == ["undoing true false", "redoing false true"])
        #expect(!undo.isUndoing && !undo.isRedoing)
    }

    @Test("an empty group is not an undo step, and an operation whose target is gone is skipped")
    func emptyAndGone() {
        let undo = ObjectUndoManager()
        undo.beginUndoGrouping()
        undo.endUndoGrouping()
        undo.endUndoGrouping()
        #expect(!undo.canUndo)
        var ran = false
        do {
            let transient = Document(undo)
            undo.registerUndo(withTarget: transient) { _ in ran = true }
        }
        undo.undo()
        #expect(!ran)
    }

    @Test("notifications: checkpoints, groups opening and closing, undo and redo")
    func notifications() {
        let undo = ObjectUndoManager()
        let notes = UndoNotes(undo)
        let document = Document(undo)
        undo.beginUndoGrouping()
        document.set("a")
        undo.endUndoGrouping()
        undo.undo()
        undo.redo()
        #expect(notes.count(ObjectUndoManager.didOpenUndoGroupNotification) == 1)
        #expect(notes.count(ObjectUndoManager.willUndoChangeNotification) == 1)
        #expect(notes.count(ObjectUndoManager.didUndoChangeNotification) == 1)
        #expect(notes.count(ObjectUndoManager.willRedoChangeNotification) == 1)
        #expect(notes.count(ObjectUndoManager.didRedoChangeNotification) == 1)
        // The inner group, the event group, the redo group and the undo group closed.
        #expect(notes.count(ObjectUndoManager.didCloseUndoGroupNotification) == 4)
        #expect(notes.count(ObjectUndoManager.checkpointNotification) >= 4)
        let willUndo = notes.all.firstIndex(of: ObjectUndoManager.willUndoChangeNotification)!
        let didUndo = notes.all.firstIndex(of: ObjectUndoManager.didUndoChangeNotification)!
        #expect(willUndo < didUndo)
    }
}
