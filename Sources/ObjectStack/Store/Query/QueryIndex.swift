/// An ordered index a store offers its query planner.
///
/// Entries are ordered by the values of `columns`, compared as `ValueComparison.sortOrder` compares them
/// (case-sensitively: `nil` first, strings by code point), ties by primary key. A store offers only what it
/// orders exactly so; the planner never asks an index for more.
public struct QueryIndex: Sendable, CustomStringConvertible {
    /// What an index is in the model.
    public enum Kind: Sendable {
        /// A fetch index (an entity's `indexes`, or an indexed attribute).
        case index
        /// A uniqueness constraint: one entry per value combination.
        case unique
        /// The referrers of a to-one relationship, keyed by the target's primary key (equality only).
        case reference
    }

    /// One column of an index.
    public enum Column: Sendable {
        case attribute(AttributeDescription)
        case toOne(RelationshipDescription)

        /// The column's property name.
        public var name: String {
            switch self {
            case .attribute(let attribute): return attribute.name
            case .toOne(let relationship): return relationship.name
            }
        }
    }

    /// The store's name for the index, shown in plans.
    public let name: String
    /// What the index is.
    public let kind: Kind
    /// The columns, in key order.
    public let columns: [Column]
    /// Whether every row of the indexed entities has an entry. A uniqueness constraint skips rows with a nil
    /// in its columns, so it can serve an order only when its columns are required.
    public let isComplete: Bool

    /// Creates an index description.
    public init(name: String, kind: Kind, columns: [Column], isComplete: Bool) {
        self.name = name
        self.kind = kind
        self.columns = columns
        self.isComplete = isComplete
    }

    /// The attribute of column `position`, if that column is an attribute.
    public func attribute(at position: Int) -> AttributeDescription? {
        guard position < columns.count, case .attribute(let attribute) = columns[position] else { return nil }
        return attribute
    }

    public var description: String { "\(name)(" + columns.map(\.name).joined(separator: ", ") + ")" }

    /// The indexes of an entity's model: its and its ancestors' fetch indexes and indexed attributes, the
    /// uniqueness constraints that apply to it, and its to-one relationships' referrer indexes. Names follow
    /// `index/Declaring/name`, `unique/Declaring/a,b`, `referrers/Entity.relationship`.
    public static func indexes(of entity: EntityDescription) -> [QueryIndex] {
        var result: [QueryIndex] = []
        var current: EntityDescription? = entity
        while let declaring = current {
            for index in declaring.indexes {
                let attributes = index.attributeNames.compactMap { declaring.attributesByName[$0] }
                if !attributes.isEmpty, attributes.count == index.attributeNames.count,
                    attributes.allSatisfy({ $0.storedIndex != nil })
                {
                    result.append(
                        QueryIndex(
                            name: "index/\(declaring.name)/\(index.name)", kind: .index,
                            columns: attributes.map { .attribute($0) }, isComplete: true))
                }
            }
            for attribute in declaring.declaredAttributes where attribute.isIndexed && attribute.storedIndex != nil {
                result.append(
                    QueryIndex(
                        name: "index/\(declaring.name)/.\(attribute.name)", kind: .index,
                        columns: [.attribute(attribute)], isComplete: true))
            }
            current = declaring.superentity
        }
        for (declaring, attributes) in entity.applicableUniquenessConstraints
        where attributes.allSatisfy({ $0.storedIndex != nil }) {
            result.append(
                QueryIndex(
                    name: "unique/\(declaring.name)/" + attributes.map(\.name).joined(separator: ","),
                    kind: .unique, columns: attributes.map { .attribute($0) },
                    isComplete: attributes.allSatisfy { !$0.isOptional }))
        }
        for case .toOne(let relationship) in entity.storedProperties {
            result.append(
                QueryIndex(
                    name: "referrers/\(relationship.storageKey)", kind: .reference,
                    columns: [.toOne(relationship)], isComplete: false))
        }
        return result
    }
}
