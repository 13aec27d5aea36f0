import CLMDB
import Foundation
import ObjectStack

/// The sub-databases of a store and which of them each entity writes.
///
/// - `meta`: the store's metadata, entity table and key counters.
/// - `rows/Root`: one per entity hierarchy; key: big-endian primary key, value: the encoded row.
/// - `unique/Entity/a,b`: one per uniqueness constraint; key: the encoded values, value: the owner's key.
///   (A unique key needs no primary-key suffix, and without one a single `MDB_NOOVERWRITE` put both checks
///   and claims the values.)
/// - `index/Entity/name` (and `index/Entity/.attribute` for an indexed attribute): key: the encoded values
///   then the primary key.
/// - `referrers/Entity.relationship`: one per to-one; key: the target's key then the referrer's key, value:
///   the referrer's entity code, so a to-many read through its inverse is a prefix scan, not a table scan.
/// - `links/Entity.relationship` and `links-back/…`: join tables; key: one side's key then a sequence
///   number (insertion order), value: the other side's entity code and key.
struct LMDBSchema: Sendable {
    struct Constraint: Sendable {
        let declaring: EntityDescription
        let attributes: [AttributeDescription]
        let dbi: MDB_dbi
    }

    struct Index: Sendable {
        let attributes: [AttributeDescription]
        let dbi: MDB_dbi
    }

    struct ToOne: Sendable {
        let relationship: RelationshipDescription
        let dbi: MDB_dbi
    }

    struct JoinTable: Sendable {
        let owner: RelationshipDescription
        let forward: MDB_dbi
        let backward: MDB_dbi
    }

    /// What one concrete entity's rows touch.
    ///
    /// A class, so handing a layout around retains one object rather than each of its arrays (that showed in
    /// save profiles, once per row).
    final class EntityLayout: Sendable {
        let rows: MDB_dbi
        let constraints: [Constraint]
        let indexes: [Index]
        let toOnes: [ToOne]
        /// Join tables in which this entity's objects are the owning side.
        let sourceOf: [JoinTable]
        /// Join tables in which this entity's objects are the other side.
        let destinationOf: [JoinTable]
        /// What the query planner may use: the indexes, uniqueness constraints and referrer indexes covering
        /// the entity's rows, with their sub-databases.
        let queryIndexes: [(index: QueryIndex, dbi: MDB_dbi)]
        /// Whether every row in the hierarchy's rows database is of this entity (a count of every row needs
        /// no entity check).
        let ownsAllRows: Bool
        /// The stored positions of every value an entry outside the row depends on: constraint, index and
        /// to-one columns. An update that keeps them all leaves those entries as they are.
        let keyedStoredIndices: [Int]

        init(
            rows: MDB_dbi, constraints: [Constraint], indexes: [Index], toOnes: [ToOne], sourceOf: [JoinTable],
            destinationOf: [JoinTable], queryIndexes: [(index: QueryIndex, dbi: MDB_dbi)], ownsAllRows: Bool
        ) {
            self.queryIndexes = queryIndexes
            self.ownsAllRows = ownsAllRows
            self.rows = rows
            self.constraints = constraints
            self.indexes = indexes
            self.toOnes = toOnes
            self.sourceOf = sourceOf
            self.destinationOf = destinationOf
            var keyed = Set(constraints.flatMap { $0.attributes.compactMap(\.storedIndex) })
            keyed.formUnion(indexes.flatMap { $0.attributes.compactMap(\.storedIndex) })
            keyed.formUnion(toOnes.compactMap(\.relationship.storedIndex))
            keyedStoredIndices = keyed.sorted()
        }
    }

    let meta: MDB_dbi
    /// Layouts by `EntityDescription.modelIndex`.
    private let layouts: [EntityLayout?]
    /// Join tables by the owning relationship's storage key.
    let joinTables: [String: JoinTable]
    /// Referrer indexes by the to-one relationship's storage key.
    let referrers: [String: MDB_dbi]

    static let metaName = "meta"

    static func rowsName(_ root: EntityDescription) -> String { "rows/\(root.name)" }

    static func constraintName(_ declaring: EntityDescription, _ attributes: [AttributeDescription]) -> String {
        "unique/\(declaring.name)/" + attributes.map(\.name).joined(separator: ",")
    }

    /// Every sub-database the entities need, by name.
    static func names(for entities: [EntityDescription]) -> [String] {
        var names: Set<String> = [metaName]
        for entity in entities {
            names.insert(rowsName(entity.rootEntity))
            for (declaring, attributes) in entity.applicableUniquenessConstraints {
                names.insert(constraintName(declaring, attributes))
            }
            for (name, _) in indexes(of: entity) { names.insert(name) }
            for case .toOne(let relationship) in entity.storedProperties {
                names.insert("referrers/\(relationship.storageKey)")
            }
            for relationship in entity.relationships where relationship.storage == .joinTable {
                let owner = relationship.joinTableOwner
                names.insert("links/\(owner.storageKey)")
                names.insert("links-back/\(owner.storageKey)")
            }
        }
        return names.sorted()
    }

    /// The indexes that cover an entity's rows (its own and its ancestors'), by sub-database name.
    static func indexes(of entity: EntityDescription) -> [(String, [AttributeDescription])] {
        var result: [(String, [AttributeDescription])] = []
        var current: EntityDescription? = entity
        while let declaring = current {
            for index in declaring.indexes {
                result.append(
                    (
                        "index/\(declaring.name)/\(index.name)",
                        index.attributeNames.compactMap { declaring.attributesByName[$0] }
                    ))
            }
            for attribute in declaring.declaredAttributes where attribute.isIndexed && attribute.storedIndex != nil {
                result.append(("index/\(declaring.name)/.\(attribute.name)", [attribute]))
            }
            current = declaring.superentity
        }
        return result.filter { !$0.1.isEmpty && $0.1.allSatisfy { $0.storedIndex != nil } }
    }

    /// Builds the schema from opened handles (every name of `names(for:)` must be in `dbis`).
    init(entities: [EntityDescription], model: ManagedObjectModel, dbis: [String: MDB_dbi]) {
        meta = dbis[Self.metaName]!
        var joinTables: [String: JoinTable] = [:]
        var referrers: [String: MDB_dbi] = [:]
        for entity in entities {
            for relationship in entity.relationships where relationship.storage == .joinTable {
                let owner = relationship.joinTableOwner
                joinTables[owner.storageKey] = JoinTable(
                    owner: owner, forward: dbis["links/\(owner.storageKey)"]!,
                    backward: dbis["links-back/\(owner.storageKey)"]!)
            }
            for case .toOne(let relationship) in entity.storedProperties {
                referrers[relationship.storageKey] = dbis["referrers/\(relationship.storageKey)"]!
            }
        }
        var layouts = [EntityLayout?](repeating: nil, count: model.entities.count)
        for entity in entities where entity.modelIndex >= 0 && entity.modelIndex < layouts.count {
            layouts[entity.modelIndex] = EntityLayout(
                rows: dbis[Self.rowsName(entity.rootEntity)]!,
                constraints: entity.applicableUniquenessConstraints.map {
                    Constraint(declaring: $0.0, attributes: $0.1, dbi: dbis[Self.constraintName($0.0, $0.1)]!)
                },
                indexes: Self.indexes(of: entity).map { Index(attributes: $0.1, dbi: dbis[$0.0]!) },
                toOnes: entity.storedProperties.compactMap { property in
                    guard case .toOne(let relationship) = property else { return nil }
                    return ToOne(relationship: relationship, dbi: referrers[relationship.storageKey]!)
                },
                sourceOf: joinTables.values.filter { entity.isKind(of: $0.owner.entity) }
                    .sorted { $0.owner.storageKey < $1.owner.storageKey },
                destinationOf: joinTables.values.filter { entity.isKind(of: $0.owner.destinationEntity) }
                    .sorted { $0.owner.storageKey < $1.owner.storageKey },
                queryIndexes: QueryIndex.indexes(of: entity).compactMap { index in dbis[index.name].map { (index, $0) }
                },
                ownsAllRows: entity.rootEntity.selfAndDescendants.allSatisfy { $0 === entity || $0.isAbstract })
        }
        self.layouts = layouts
        self.joinTables = joinTables
        self.referrers = referrers
    }

    /// The layout of an entity this store holds, or nil for an entity of another configuration.
    @inline(__always)
    func layout(of entity: EntityDescription) -> EntityLayout? {
        entity.modelIndex >= 0 && entity.modelIndex < layouts.count ? layouts[entity.modelIndex] : nil
    }
}
