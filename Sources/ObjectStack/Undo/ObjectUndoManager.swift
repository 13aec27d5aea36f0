import Foundation

/// Records undo operations in groups and performs them, with the shape of Foundation's `UndoManager`.
///
/// Foundation on Linux has no `UndoManager`, so ObjectStack brings one. It is named `ObjectUndoManager`, not
/// `UndoManager`, so that a program importing both Foundation and ObjectStack on macOS, where Foundation has its
/// own, never meets an ambiguous name. Give one to a context (`context.undoManager = ObjectUndoManager()`) and
/// the context records its inserts, deletes and property changes with it; it works as well for any other
/// undoable state.
///
/// For example:
/// ```swift
/// let undo = ObjectUndoManager()
/// undo.registerUndo(withTarget: document) { $0.title = "Untitled" }
/// undo.setActionName("Rename")
/// undo.undo()   // document.title is "Untitled" again; undo.canRedo is true
/// ```
/// Operations registered outside a group open one when `groupsByEvent` is true (the default). There is no run
/// loop to end an event here: a context that uses the manager closes the group at the end of each
/// `processPendingChanges()` cycle (the end of a `perform` block or of a main-queue turn, an explicit call, and
/// the start of a fetch or save, which process pending changes first), and `undo()`/`redo()` close it too.
/// A group opened with `beginUndoGrouping()` nests inside that event group, so it stays one step until its
/// `endUndoGrouping()`.
///
/// Differences from Foundation: an empty group is never kept as an undo step (Foundation keeps explicitly
/// closed empty groups), there are no run-loop modes and no invocation-based registration, and targets are
/// held weakly (an operation whose target is gone is skipped).
/// - warning: Not thread-safe, like Foundation's: use a manager on one queue, the queue of the context that uses it.
public final class ObjectUndoManager {
    // MARK: - Notifications

    /// Posted (object: the manager) when a group opens or closes (except a top-level group opening) and before
    /// `canRedo` answers; contexts using the manager process their pending changes then, as Core Data's do.
    public static let checkpointNotification = Notification.Name("ObjectUndoManagerCheckpoint")
    /// Posted (object: the manager) after a group opened.
    public static let didOpenUndoGroupNotification = Notification.Name("ObjectUndoManagerDidOpenUndoGroup")
    /// Posted (object: the manager) before a group closes.
    public static let willCloseUndoGroupNotification = Notification.Name("ObjectUndoManagerWillCloseUndoGroup")
    /// Posted (object: the manager) after a group closed; userInfo holds `groupIsDiscardableKey`.
    public static let didCloseUndoGroupNotification = Notification.Name("ObjectUndoManagerDidCloseUndoGroup")
    /// Posted (object: the manager) before `undo()` performs a group.
    public static let willUndoChangeNotification = Notification.Name("ObjectUndoManagerWillUndoChange")
    /// Posted (object: the manager) after `undo()` performed a group.
    public static let didUndoChangeNotification = Notification.Name("ObjectUndoManagerDidUndoChange")
    /// Posted (object: the manager) before `redo()` performs a group.
    public static let willRedoChangeNotification = Notification.Name("ObjectUndoManagerWillRedoChange")
    /// Posted (object: the manager) after `redo()` performed a group.
    public static let didRedoChangeNotification = Notification.Name("ObjectUndoManagerDidRedoChange")
    /// The userInfo key of `didCloseUndoGroupNotification`: whether the closed group is discardable (a `Bool`).
    public static let groupIsDiscardableKey = "ObjectUndoManagerGroupIsDiscardable"

    // MARK: - State

    /// One registered operation: a handler and the object it is performed on.
    private struct Action {
        weak var target: AnyObject?
        let perform: (AnyObject) -> Void
    }

    /// A group of operations (and nested groups), undone together, last first.
    private final class Group {
        enum Item {
            case action(Action)
            case group(Group)
        }

        var items: [Item] = []
        var actionName = ""
        var isDiscardable = false

        var isEmpty: Bool { items.isEmpty }

        /// Drops the operations on `target` (and those whose target is gone), and nested groups left empty.
        func removeActions(withTarget target: AnyObject) {
            items = items.compactMap { item in
                switch item {
                case .action(let action):
                    guard let actionTarget = action.target, actionTarget !== target else { return nil }
                    return item
                case .group(let group):
                    group.removeActions(withTarget: target)
                    return group.isEmpty ? nil : item
                }
            }
        }
    }

    /// What the manager is doing: registrations while undoing go to the redo stack, and while neither undoing
    /// nor redoing a registration clears the redo stack.
    private enum Activity {
        case idle, undoing, redoing
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The open groups, outermost first.
    private var openGroups: [Group] = []
    private var activity = Activity.idle
    private var disableCount = 0
    /// Contexts told of every checkpoint before the notification is posted: they record their pending changes.
    private var checkpointContexts: [WeakContext] = []

    /// Whether operations registered outside any group open one (the event's), as Foundation's manager does for
    /// each pass of the run loop. Default true. When false, open and close groups yourself before `undo()`.
    public var groupsByEvent = true

    /// The most top-level groups kept on the undo stack (and on the redo stack); 0, the default, for no limit.
    /// The oldest groups go first.
    public var levelsOfUndo = 0 {
        didSet {
            precondition(levelsOfUndo >= 0, "levelsOfUndo must not be negative")
            trim(&undoStack)
            trim(&redoStack)
        }
    }

    /// Creates a manager with empty stacks.
    public init() {}

    // MARK: - Registering

    /// Registers an operation that undoes a change: `handler` is called with `target` when the group is undone.
    ///
    /// An operation registered while undoing goes to the redo stack (it is the redo); one registered otherwise
    /// clears the redo stack. Nothing is registered while registration is disabled.
    /// - Precondition: a group is open, or `groupsByEvent` is true (one is then opened).
    public func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping (Target) -> Void) {
        guard isUndoRegistrationEnabled else { return }
        if openGroups.isEmpty {
            precondition(
                groupsByEvent, "registerUndo(withTarget:handler:) needs an open undo group when groupsByEvent is false")
            openGroup(posting: false)
        }
        if activity == .idle { redoStack.removeAll() }
        openGroups[openGroups.count - 1].items.append(
            .action(
                Action(target: target) { object in
                    // The target's type is the registered one: only `target` is ever passed back.
                    handler(object as! Target)
                }))
    }

    /// Whether `registerUndo` records operations (false between `disableUndoRegistration()` and the matching
    /// `enableUndoRegistration()`).
    public var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Stops recording operations until the matching `enableUndoRegistration()`; calls nest.
    ///
    /// A context records its changes when it processes them, so to keep changes out of the undo stack, process
    /// pending changes before disabling and again before enabling:
    /// ```swift
    /// context.processPendingChanges()
    /// undo.disableUndoRegistration()
    /// item.lastViewed = Date()
    /// context.processPendingChanges()
    /// undo.enableUndoRegistration()
    /// ```
    public func disableUndoRegistration() {
        disableCount += 1
    }

    /// Undoes one `disableUndoRegistration()`.
    /// - Precondition: registration is disabled.
    public func enableUndoRegistration() {
        precondition(disableCount > 0, "enableUndoRegistration() without a matching disableUndoRegistration()")
        disableCount -= 1
    }

    // MARK: - Grouping

    /// The number of open groups (the event's group included).
    public var groupingLevel: Int { openGroups.count }

    /// Opens a group: operations registered until the matching `endUndoGrouping()` are undone together. With
    /// `groupsByEvent`, a group opened outside any group nests inside the event's group (opened with it), as
    /// Foundation's groups nest inside the run loop's.
    public func beginUndoGrouping() {
        if openGroups.isEmpty, groupsByEvent, activity == .idle { openGroup(posting: false) }
        if !openGroups.isEmpty { postCheckpoint() }
        openGroup(posting: true)
    }

    /// Closes the innermost open group. A top-level group goes onto the undo stack (onto the redo stack while
    /// undoing), unless it is empty.
    /// - Precondition: a group is open.
    public func endUndoGrouping() {
        precondition(!openGroups.isEmpty, "endUndoGrouping() without a matching beginUndoGrouping()")
        // Contexts record their pending changes into the group before it closes.
        postCheckpoint()
        NotificationCenter.default.post(name: Self.willCloseUndoGroupNotification, object: self)
        let group = openGroups.removeLast()
        if let parent = openGroups.last {
            if !group.isEmpty { parent.items.append(.group(group)) }
        } else if !group.isEmpty {
            if activity == .undoing {
                redoStack.append(group)
                trim(&redoStack)
            } else {
                undoStack.append(group)
                trim(&undoStack)
            }
        }
        NotificationCenter.default.post(
            name: Self.didCloseUndoGroupNotification, object: self,
            userInfo: [Self.groupIsDiscardableKey: group.isDiscardable])
    }

    private func openGroup(posting: Bool) {
        openGroups.append(Group())
        if posting { NotificationCenter.default.post(name: Self.didOpenUndoGroupNotification, object: self) }
    }

    /// Closes the event's group when it is the only one open: what the end of a run-loop pass does in
    /// Foundation, and what a context's `processPendingChanges()` does here.
    func endEvent() {
        guard groupsByEvent, activity == .idle, openGroups.count == 1 else { return }
        endUndoGrouping()
    }

    // MARK: - Undoing and redoing

    /// Whether there is a group to undo (on the stack, or the open event group holding operations).
    public var canUndo: Bool {
        !undoStack.isEmpty || (openGroups.count == 1 && !openGroups[0].isEmpty)
    }

    /// Whether there is a group to redo. Posts a checkpoint first, as Foundation does: a context records its
    /// pending changes, and a new change clears the redo stack.
    public var canRedo: Bool {
        postCheckpoint()
        return !redoStack.isEmpty
    }

    /// Whether `undo()` is performing a group now.
    public var isUndoing: Bool { activity == .undoing }
    /// Whether `redo()` is performing a group now.
    public var isRedoing: Bool { activity == .redoing }

    /// Closes the event's group if it is open, then undoes the last group, registering its redo.
    /// - Precondition: no group other than the event's is open.
    public func undo() {
        precondition(openGroups.count <= 1, "undo() with a nested undo group open; close it first")
        precondition(activity == .idle, "undo() called while undoing or redoing")
        if openGroups.count == 1 { endUndoGrouping() }
        undoNestedGroup()
    }

    /// Undoes the last closed group on the undo stack, recording its redo as one group.
    /// - Precondition: no group is open.
    public func undoNestedGroup() {
        precondition(openGroups.isEmpty, "undoNestedGroup() with an undo group open; close it first")
        postCheckpoint()
        // A context that recorded pending changes at the checkpoint opened the event group: those changes are the
        // last group, and the one undone.
        if openGroups.count == 1 { endUndoGrouping() }
        guard let group = undoStack.popLast() else { return }
        NotificationCenter.default.post(name: Self.willUndoChangeNotification, object: self)
        perform(group, as: .undoing)
        NotificationCenter.default.post(name: Self.didUndoChangeNotification, object: self)
    }

    /// Closes the event's group if it is open, then redoes the last undone group, registering its undo.
    /// - Precondition: no group other than the event's is open.
    public func redo() {
        precondition(openGroups.count <= 1, "redo() with a nested undo group open; close it first")
        precondition(activity == .idle, "redo() called while undoing or redoing")
        if openGroups.count == 1 { endUndoGrouping() }
        postCheckpoint()
        // Pending changes recorded at the checkpoint cleared the redo stack (and opened the event group).
        if openGroups.count == 1 { endUndoGrouping() }
        guard let group = redoStack.popLast() else { return }
        NotificationCenter.default.post(name: Self.willRedoChangeNotification, object: self)
        perform(group, as: .redoing)
        NotificationCenter.default.post(name: Self.didRedoChangeNotification, object: self)
    }

    /// Performs a group's operations, last first, inside a new group that collects what they register (the
    /// redo of an undo, the undo of a redo) under the same action name.
    private func perform(_ group: Group, as doing: Activity) {
        precondition(openGroups.isEmpty, "an undo group opened while undoing began")
        activity = doing
        defer { activity = .idle }
        let inverse = Group()
        inverse.actionName = group.actionName
        openGroups = [inverse]
        func run(_ group: Group) {
            for item in group.items.reversed() {
                switch item {
                case .action(let action):
                    if let target = action.target { action.perform(target) }
                case .group(let nested):
                    run(nested)
                }
            }
        }
        run(group)
        // The inverse closes while the manager still undoes (or redoes), so it lands on the right stack.
        endUndoGrouping()
    }

    // MARK: - Clearing

    /// Empties the undo and redo stacks, closes every open group, and enables registration again.
    public func removeAllActions() {
        undoStack = []
        redoStack = []
        openGroups = []
        disableCount = 0
    }

    /// Removes the operations on `target` from both stacks and the open groups; groups left empty go too.
    public func removeAllActions(withTarget target: AnyObject) {
        for group in undoStack + redoStack + openGroups { group.removeActions(withTarget: target) }
        undoStack.removeAll { $0.isEmpty }
        redoStack.removeAll { $0.isEmpty }
    }

    private func trim(_ stack: inout [Group]) {
        if levelsOfUndo > 0, stack.count > levelsOfUndo { stack.removeFirst(stack.count - levelsOfUndo) }
    }

    // MARK: - Action names

    /// The action name of the group `undo()` would undo ("" if none or unnamed).
    public var undoActionName: String {
        if openGroups.count == 1, activity == .idle, !openGroups[0].isEmpty { return openGroups[0].actionName }
        return undoStack.last?.actionName ?? ""
    }

    /// The action name of the group `redo()` would redo ("" if none or unnamed).
    public var redoActionName: String { redoStack.last?.actionName ?? "" }

    /// Names the group being built (the open top-level group, or while undoing the redo group), or else the
    /// last group on the undo stack: "Undo \(name)" in a menu.
    ///
    /// Posts a checkpoint first (outside undo and redo), so a context records its pending changes and the name
    /// goes to the group that holds them rather than to the group before.
    public func setActionName(_ actionName: String) {
        if activity == .idle { postCheckpoint() }
        (openGroups.first ?? undoStack.last)?.actionName = actionName
    }

    /// "Undo" followed by the undo action name, for a menu item.
    public var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
    /// "Redo" followed by the redo action name, for a menu item.
    public var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// "Undo" followed by an action name ("Undo" alone for an empty name).
    public func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// "Redo" followed by an action name ("Redo" alone for an empty name).
    public func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    /// Marks the group being built (or the last one on the undo stack) as discardable: undoing it changes only
    /// state that can be rebuilt (a selection, a scroll position).
    public func setActionIsDiscardable(_ discardable: Bool) {
        (openGroups.first ?? undoStack.last)?.isDiscardable = discardable
    }

    /// Whether the group `undo()` would undo is discardable.
    public var undoActionIsDiscardable: Bool { undoStack.last?.isDiscardable ?? false }
    /// Whether the group `redo()` would redo is discardable.
    public var redoActionIsDiscardable: Bool { redoStack.last?.isDiscardable ?? false }

    // MARK: - Contexts

    /// Tells a context of every checkpoint (before the notification), so it records its pending changes.
    func addCheckpointContext(_ context: ManagedObjectContext) {
        checkpointContexts.removeAll { $0.context == nil || $0.context === context }
        checkpointContexts.append(WeakContext(context: context))
    }

    func removeCheckpointContext(_ context: ManagedObjectContext) {
        checkpointContexts.removeAll { $0.context == nil || $0.context === context }
    }

    private func postCheckpoint() {
        for entry in checkpointContexts { entry.context?.undoCheckpoint() }
        NotificationCenter.default.post(name: Self.checkpointNotification, object: self)
    }
}
