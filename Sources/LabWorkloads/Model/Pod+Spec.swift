import LabCore

extension Pod {
    /// Sets the pod's values from a spec, touching only the values that differ (an unchanged pod stays
    /// unchanged, so re-importing the same catalogue writes nothing).
    /// - Returns: whether any value changed.
    @discardableResult
    public func apply(_ spec: PodSpec) -> Bool {
        // A new pod has nothing to compare with (unset values read as empty ones, which may equal the spec): set all.
        let fresh = isInserted
        var changed = false
        func update<Value: Equatable>(_ property: ReferenceWritableKeyPath<Pod, Value>, to value: Value) {
            guard fresh || self[keyPath: property] != value else { return }
            self[keyPath: property] = value
            changed = true
        }
        update(\.name, to: spec.name)
        update(\.version, to: spec.version)
        update(\.authors, to: spec.authors)
        update(\.homepage, to: spec.homepage)
        update(\.license, to: spec.license)
        update(\.summary, to: spec.summary)
        update(\.downloads, to: spec.downloads)
        update(\.updated, to: spec.updated)
        return changed
    }
}
