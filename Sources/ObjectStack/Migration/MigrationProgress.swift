/// How far a store migration has come, reported while it runs so a launch can show it.
///
/// For example:
/// ```swift
/// description.migrationProgress = { progress in
///     DispatchQueue.main.async { progressView.value = progress.fractionCompleted }
/// }
/// ```
/// Reports arrive on the migrating thread, in order; `fractionCompleted` never decreases and the last report
/// of a migration that succeeds is 1.0 with phase `.finished`.
public struct MigrationProgress: Sendable, Hashable {
    /// The step a migration is at.
    public enum Phase: String, Sendable, Hashable {
        /// The old store is read and the new one created beside it.
        case preparing
        /// Rows are being copied, a batch at a time.
        case copying
        /// Every row is copied; the new store is about to replace the old one.
        case replacing
        /// The new store is in place.
        case finished
    }

    /// The step.
    public var phase: Phase
    /// From 0 to 1: the share of rows copied, with the last few percent for the swap.
    public var fractionCompleted: Double
    /// Rows copied so far.
    public var completedRows: Int
    /// Rows to copy in all.
    public var totalRows: Int
    /// The entity (of the new model) whose rows are being copied, if any.
    public var entityName: String?
    /// For a migration with a mapping model, which of Core Data's three stages is running (the phase is
    /// `.copying` through all three); nil otherwise.
    public var mappingStage: MappingStage?

    /// The stages of a migration with a mapping model.
    public enum MappingStage: String, Sendable, Hashable {
        /// Destination instances are created from the source instances.
        case createDestinationInstances
        /// The destination instances' relationships are made.
        case createRelationships
        /// The policies validate, and the destination objects are validated and saved.
        case validate
    }

    /// Creates a progress report.
    public init(phase: Phase, fractionCompleted: Double, completedRows: Int, totalRows: Int, entityName: String? = nil)
    {
        self.phase = phase
        self.fractionCompleted = fractionCompleted
        self.completedRows = completedRows
        self.totalRows = totalRows
        self.entityName = entityName
    }
}
