import Foundation
import ObjectStack

extension CoreDataStoreCorpus.MappingModel {
    /// The mapping model read from its bundle, once per test process: reading one decodes two archived models, a
    /// third of a second in a debug build, and several suites read the same eight.
    public func read() throws -> ObjectStack.MappingModel {
        if let cached = Self.cache.withLock({ $0[url] }) { return cached }
        let mapping = try ObjectStack.MappingModel(contentsOf: url)
        Self.cache.withLock { $0[url] = mapping }
        return mapping
    }

    private static let cache = LockedValue<[URL: ObjectStack.MappingModel]>([:])
}
