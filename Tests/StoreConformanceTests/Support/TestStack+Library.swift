import Foundation
import ObjectStack

extension TestStack {
    /// A stack of `kind` on the suite's library model, at `location` or a fresh one.
    init(_ kind: StoreType, location: URL? = nil) throws {
        try self.init(kind, model: LibraryModel.make(), location: location)
    }
}
