import Foundation

/// Migrates a store with a mapping model, as Core Data's `NSMigrationManager` does: a context on the old store and one
/// on the new, and three stages — destination instances are created, their relationships made, then they are
/// validated and saved.
///
/// For example, migrating a store file in place, atomically:
/// ```swift
/// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Moody 2-Moody 3.xcmappingmodel"))
/// let (v2, v3) = try mapping.versions(in: try ManagedObjectModel.versions(contentsOf: bundle))
/// try MigrationManager.migrateStore(at: url, type: .sqlite, from: v2.model, to: v3.model, mapping: mapping) {
///     print($0.fractionCompleted)
/// }
/// ```
/// or, as Core Data does, from one store into another (any two stores, in-memory ones included):
/// ```swift
/// let manager = MigrationManager(sourceModel: v2.model, destinationModel: v3.model, policies: policies)
/// try manager.migrateStore(from: oldURL, type: .lmdb, mapping: mapping, to: newURL, type: .lmdb)
/// ```
/// Each entity mapping runs through its policy (``EntityMigrationPolicy``; the default one when it names none):
/// 1. for each mapping, each source instance (its source entity's, not its sub-entities', those its filter predicate
///    matches) gets its destination instance(s), the attributes set by their value expressions with `$source` the
///    source instance;
/// 2. for each mapping, each destination instance it made gets its relationships, set by their value expressions
///    (usually `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", …)`);
/// 3. each policy's custom validation runs, then the destination context is saved, which validates every object:
///    one transaction.
///
/// Every value expression is bound to the models, and every policy found, before the new store is opened: an
/// expression that cannot be evaluated or a policy that is not registered stops the migration with an error naming
/// the mapping, the property and the expression (or the class), having written nothing.
/// - Note: Not thread-safe: one migration at a time, on the calling thread. Policies run on that thread, with both
///   contexts' queues held, so they use `sourceContext` and `destinationContext` directly.
public final class MigrationManager {
    /// The model of the store migrated from.
    public let sourceModel: ManagedObjectModel
    /// The model of the store migrated to.
    public let destinationModel: ManagedObjectModel
    /// The Swift policies entity mappings may name.
    public let policies: EntityMigrationPolicies
    /// What policies keep for the length of a migration (Core Data's `userInfo`); emptied when one starts.
    public var userInfo: [String: Any] = [:]

    /// The state of the migration under way.
    var run: MigrationRun?

    /// A manager for migrations from `sourceModel` to `destinationModel`, with `policies` for the entity mappings
    /// that name a class.
    public init(
        sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel,
        policies: EntityMigrationPolicies = EntityMigrationPolicies()
    ) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.policies = policies
    }

    // MARK: - The migration under way

    private var current: MigrationRun {
        guard let run else { preconditionFailure("MigrationManager: no migration is running (use it from a policy)") }
        return run
    }

    /// The context on the source store.
    /// - Precondition: a migration is running (a policy is being called).
    public var sourceContext: ManagedObjectContext { current.sourceContext }
    /// The context the destination objects are inserted into.
    /// - Precondition: a migration is running (a policy is being called).
    public var destinationContext: ManagedObjectContext { current.destinationContext }
    /// The mapping model of the migration under way, nil when none is running.
    public var mappingModel: MappingModel? { run?.mapping }
    /// The entity mapping being run, nil between mappings and when no migration is running.
    public var currentEntityMapping: EntityMapping? { run?.currentMapping }
    /// From 0 to 1: how far the migration under way has come (1 once finished).
    public var migrationProgress: Double { run?.fractionCompleted ?? 0 }

    // MARK: - Instances

    /// The destination instances the entity mapping named `mappingName` made from `sourceInstances` (every one it
    /// made, when nil), in the order they were made.
    public func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [ManagedObject]?)
        -> [ManagedObject]
    {
        guard let associations = run?.associations[mappingName] else { return [] }
        guard let sourceInstances else { return associations.pairs.map(\.destination) }
        return sourceInstances.flatMap { associations.destinationsBySource[$0.objectID] ?? [] }
    }

    /// The source instances the entity mapping named `mappingName` made `destinationInstances` from (every one it
    /// migrated, when nil).
    public func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [ManagedObject]?)
        -> [ManagedObject]
    {
        guard let associations = run?.associations[mappingName] else { return [] }
        guard let destinationInstances else {
            var seen = Set<ManagedObjectID>()
            return associations.pairs.map(\.source).filter { seen.insert($0.objectID).inserted }
        }
        return destinationInstances.compactMap { associations.sourceByDestination[ObjectIdentifier($0)] }
    }

    /// Records that `mapping` made `destination` from `source`: what `destinationInstances(…)` and the relationship
    /// stage go by. A policy that creates instances itself associates them.
    public func associate(
        sourceInstance source: ManagedObject, withDestinationInstance destination: ManagedObject,
        for mapping: EntityMapping
    ) {
        current.associations[mapping.name, default: MigrationRun.Associations()].add(source, destination)
    }

    /// The source model's entity the mapping maps from.
    public func sourceEntity(for mapping: EntityMapping) -> EntityDescription? {
        mapping.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination model's entity the mapping maps to.
    public func destinationEntity(for mapping: EntityMapping) -> EntityDescription? {
        mapping.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    /// The fetch of a source entity's instances (not its sub-entities') that match `predicateString`: what an
    /// entity mapping's source expression runs (Core Data's `fetchRequestForSourceEntityNamed:predicateString:`).
    /// - Throws: `ObjectStackError` for an entity the source model does not have or a predicate that does not parse.
    public func fetchRequest(forSourceEntityNamed entityName: String, predicateString: String) throws
        -> FetchRequest<ManagedObject>
    {
        guard sourceModel.entitiesByName[entityName] != nil else {
            throw ObjectStackError(
                code: .unknownEntity, message: "the source model has no entity \(entityName) to migrate from")
        }
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        request.includesSubentities = false
        request.returnsObjectsAsFaults = false
        if predicateString != "TRUEPREDICATE" { request.predicate = try FetchPredicate(format: predicateString) }
        return request
    }
}
