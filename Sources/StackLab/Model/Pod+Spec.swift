import LabCore

extension Pod {
    /// Sets the pod's values from a spec, touching only the values that differ (an unchanged pod stays
    /// unchanged, so re-importing the same catalogue writes nothing).
    /// - Returns: whether any value changed.
    @discardableResult
    public func apply(_ spec: PodSpec) -> Bool {
        // A new pod has no values to compare (reading an unset non-optional attribute traps): set them all.
        let fresh = isInserted
        var changed = false
        if fresh || name != spec.name {
            name = spec.name
            changed = true
        }
        if fresh || version != spec.version {
            version = spec.version
            changed = true
        }
        if fresh || authors != spec.authors {
            authors = spec.authors
            changed = true
        }
        if fresh || homepage != spec.homepage {
            homepage = spec.homepage
            changed = true
        }
        if fresh || license != spec.license {
            license = spec.license
            changed = true
        }
        if fresh || summary != spec.summary {
            summary = spec.summary
            changed = true
        }
        if fresh || downloads != spec.downloads {
            downloads = spec.downloads
            changed = true
        }
        if fresh || updated != spec.updated {
            updated = spec.updated
            changed = true
        }
        return changed
    }
}
