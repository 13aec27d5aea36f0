extension PersistentStoreCoordinator {
    /// Adds or removes a context from those that merge every save made through this coordinator.
    func setAutomaticMerging(_ enabled: Bool, for context: ManagedObjectContext) {
        mergingContexts.withLock { list in
            list.removeAll { $0.context == nil || $0.context === context }
            if enabled { list.append(WeakContext(context: context)) }
        }
    }

    /// The contexts on this coordinator that merge other contexts' saves automatically.
    func automaticallyMergingContexts() -> [ManagedObjectContext] {
        mergingContexts.withLock { list in list.compactMap(\.context) }
    }
}
