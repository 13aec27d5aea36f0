import LabCore
import ObjectStack

extension Pod {
    /// Sets all eight values (the engines and `explain` write generated rows through it).
    public func set(_ row: PodRow) {
        name = row.name
        version = row.version
        authors = row.authors
        homepage = row.homepage
        license = row.license
        summary = row.summary
        downloads = row.downloads
        updated = row.updated
    }
}
