import ObjectStack

/// What a save writes of an entity's row besides the values themselves, worked out once per entity: stored
/// indices whose columns the file's own triggers maintain (a derived attribute of a store Core Data wrote, whose
/// `Z_DA_…` triggers compute it, so it is written once), and binary attributes whose bytes Core Data tags
/// (`ExternalBinaryData`). Both are empty for most entities, so the per-row check is one test of an empty set.
struct SQLiteWriteRules: Sendable {
    /// Stored indices the save leaves to triggers.
    let excluded: Set<Int>
    /// Stored indices of binary attributes written with Core Data's tag.
    let tagged: Set<Int>

    /// No exclusions, no tags.
    static let plain = SQLiteWriteRules(excluded: [], tagged: [])

    /// Whether the row is written as it is.
    var isPlain: Bool { excluded.isEmpty && tagged.isEmpty }

    init(excluded: Set<Int>, tagged: Set<Int>) {
        self.excluded = excluded
        self.tagged = tagged
    }

    /// The rules of `entity`, given the derived attributes ("Entity.attribute") the file's triggers compute.
    init(entity: EntityDescription, triggerDerived: Set<String>) {
        var excluded: Set<Int> = []
        var tagged: Set<Int> = []
        for attribute in entity.attributes {
            guard let index = attribute.storedIndex else { continue }
            if ExternalBinaryData.applies(to: attribute) { tagged.insert(index) }
            var declaring: EntityDescription? = entity
            while let candidate = declaring, !candidate.declaredAttributes.contains(where: { $0 === attribute }) {
                declaring = candidate.superentity
            }
            if triggerDerived.contains("\((declaring ?? entity).name).\(attribute.name)") { excluded.insert(index) }
        }
        self.init(excluded: excluded, tagged: tagged)
    }
}
