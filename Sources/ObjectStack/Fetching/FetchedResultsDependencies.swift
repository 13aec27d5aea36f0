import Foundation

/// The related objects a fetched results controller's predicate and sort keys read through relationships, so
/// that a change of one of them (an author's name, for books sorted by `author.name`) re-checks the results
/// that reach it.
///
/// Each key path that crosses relationships gives a chain of relationships from the fetched entity. A changed
/// object whose entity is the destination of a chain's step is walked back through the inverses of the steps
/// before it to the fetched objects it affects. A chain with a step that has no inverse cannot be walked back:
/// then any change of such an object re-checks every result.
struct FetchedResultsDependencies {
    /// A chain of relationships from the fetched entity, and for one of its steps the entity it reaches.
    private struct Watch {
        let chain: [RelationshipDescription]
        /// How many steps lead to the watched entity (1 for the destination of the first step).
        let depth: Int
        /// Whether every step up to `depth` has an inverse to walk back through.
        let canWalkBack: Bool
    }

    /// The watches by the entity whose objects they concern (each entity of a hierarchy listed).
    private let watches: [ObjectIdentifier: [Watch]]

    var isEmpty: Bool { watches.isEmpty }

    init(predicate: BoundPredicate?, sortKeys: [BoundSortKey]) {
        var chains: [[RelationshipDescription]] = []
        if let predicate { Self.collect(predicate, variables: [:], into: &chains) }
        for key in sortKeys { Self.collect(key.keyPath, from: [], into: &chains) }
        var watches: [ObjectIdentifier: [Watch]] = [:]
        for chain in chains {
            for depth in 1...chain.count {
                let steps = chain.prefix(depth)
                let watch = Watch(chain: chain, depth: depth, canWalkBack: steps.allSatisfy { $0.inverse != nil })
                for entity in chain[depth - 1].destinationEntity.selfAndDescendants {
                    watches[ObjectIdentifier(entity), default: []].append(watch)
                }
            }
        }
        self.watches = watches
    }

    /// The registered objects among `changed`'s dependants that may be (or may become) results; nil when a
    /// change cannot be walked back, so every result must be checked.
    func dependants(of changed: some Sequence<ManagedObject>, in context: ManagedObjectContext) -> Set<ManagedObject>? {
        var found: Set<ManagedObject> = []
        for object in changed {
            guard let list = watches[ObjectIdentifier(object.entity)] else { continue }
            for watch in list {
                guard watch.canWalkBack else { return nil }
                var level: [ManagedObject] = [object]
                for step in watch.chain.prefix(watch.depth).reversed() {
                    let inverse = step.inverse!
                    var previous: [ManagedObject] = []
                    for member in level where member.managedObjectContext === context && !member.isInaccessible {
                        let ids =
                            inverse.isToMany ? member.toManyIDs(inverse) : member.toOneID(inverse).map { [$0] } ?? []
                        previous.append(contentsOf: ids.map { context.object(with: $0) })
                    }
                    level = previous
                }
                found.formUnion(level)
            }
        }
        return found
    }

    // MARK: - Collecting key paths

    private static func collect(
        _ predicate: BoundPredicate, variables: [String: [RelationshipDescription]],
        into chains: inout [[RelationshipDescription]]
    ) {
        switch predicate {
        case .constant:
            return
        case .comparison(let comparison):
            collect(comparison.lhs, variables: variables, into: &chains)
            collect(comparison.rhs, variables: variables, into: &chains)
        case .and(let parts), .or(let parts):
            for part in parts { collect(part, variables: variables, into: &chains) }
        case .not(let inner):
            collect(inner, variables: variables, into: &chains)
        }
    }

    private static func collect(
        _ expression: BoundExpression, variables: [String: [RelationshipDescription]],
        into chains: inout [[RelationshipDescription]]
    ) {
        switch expression {
        case .constant, .list:
            return
        case .keyPath(let path):
            collect(path, from: path.variable.flatMap { variables[$0] } ?? [], into: &chains)
        case .subquery(let subquery):
            let start = subquery.collection.variable.flatMap { variables[$0] } ?? []
            let collection = start + relationships(of: subquery.collection)
            if !collection.isEmpty { chains.append(collection) }
            var inner = variables
            inner[subquery.variable] = collection
            collect(subquery.predicate, variables: inner, into: &chains)
        case .aggregate(_, let operand):
            collect(operand, variables: variables, into: &chains)
        case .arithmetic(_, let lhs, let rhs):
            collect(lhs, variables: variables, into: &chains)
            collect(rhs, variables: variables, into: &chains)
        }
    }

    private static func collect(
        _ path: BoundKeyPath, from prefix: [RelationshipDescription], into chains: inout [[RelationshipDescription]]
    ) {
        let chain = prefix + relationships(of: path)
        if !chain.isEmpty { chains.append(chain) }
    }

    private static func relationships(of path: BoundKeyPath) -> [RelationshipDescription] {
        path.steps.compactMap { step in
            switch step {
            case .toOne(let relationship), .toMany(let relationship), .element(let relationship, _): return relationship
            case .attribute: return nil
            }
        }
    }
}
