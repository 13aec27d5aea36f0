/// A store that can tell, cheaply, whether anything wrote to it: the basis of remote change notifications.
///
/// The coordinator's watcher reads `changeStamp()` once a frame (and right after its own writes); any change of
/// the value means some context, coordinator or process committed a write since the last read.
public protocol StoreChangeObserving: PersistentStore {
    /// A value that changes whenever a write to the store commits, whoever wrote it.
    /// - Complexity: O(1); called 60 times a second while remote change notifications are on.
    func changeStamp() throws -> UInt64
}
