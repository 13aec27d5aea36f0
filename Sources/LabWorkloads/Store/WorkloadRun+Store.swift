import LabCore

extension WorkloadRun {
    /// The `store` parameter, as `LabStores` declares it; nil when unset or not a store.
    public var store: StoreKind? { text("store").flatMap(StoreKind.named) }
}
