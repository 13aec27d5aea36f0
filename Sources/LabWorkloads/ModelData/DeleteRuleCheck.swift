import Foundation
import ObjectStack

/// Whether deleting an object would pass the save, by the model's delete rules: what a workload asks before it
/// deletes, so a delete the model forbids is passed over (and counted) instead of failing the save.
///
/// The object and everything its cascade rules delete with it are checked: a deny rule holding an object that
/// stays refuses, and so does a nullify (or cascade) that leaves an object that stays with a required to-one
/// nil or a to-many under its minimum count.
///
/// For example:
/// ```swift
/// if let reason = DeleteRuleCheck.refusal(deleting: mood) { print(reason) } else { context.delete(mood) }
/// ```
/// A caller that must spare some objects (those the same save updates) asks for the cascade first:
/// ```swift
/// let doomed = DeleteRuleCheck.cascade(of: folder)
/// if doomed.allSatisfy({ !updated.contains($0.objectID) }), DeleteRuleCheck.refusal(deleting: doomed) == nil { … }
/// ```
enum DeleteRuleCheck {
    /// The most objects a cascade is followed through before the delete is refused as too large to check.
    static let maximumCascade = 10_000

    /// Why deleting `object` (with its cascade) would fail the save, nil when it would not. Call on the object's
    /// context's queue.
    static func refusal(deleting object: ManagedObject) -> String? {
        refusal(deleting: cascade(of: object))
    }

    /// The objects deleting `object` deletes: itself first, then what its cascade rules reach, transitively (the
    /// walk stops once more than `maximumCascade` are found). Call on the object's context's queue.
    static func cascade(of object: ManagedObject) -> [ManagedObject] {
        var seen: Set<ManagedObjectID> = [object.objectID]
        var objects = [object]
        var queue = [object]
        while let next = queue.popLast(), objects.count <= maximumCascade {
            for relationship in next.entity.relationships
            where relationship.deleteRule == .cascade && !relationship.isTransient {
                for destination in next.relatedObjects(relationship)
                where seen.insert(destination.objectID).inserted {
                    objects.append(destination)
                    queue.append(destination)
                }
            }
        }
        return objects
    }

    /// Why deleting `objects` together (an object and its cascade, as `cascade(of:)` gives them) would fail the
    /// save, nil when it would not.
    static func refusal(deleting objects: [ManagedObject]) -> String? {
        guard objects.count <= maximumCascade else { return "its cascade deletes more than \(maximumCascade) objects" }
        let doomed = Set(objects.map(\.objectID))
        for deleted in objects {
            for relationship in deleted.entity.relationships where !relationship.isTransient {
                let staying = deleted.relatedObjects(relationship).filter {
                    !doomed.contains($0.objectID)
                }
                guard !staying.isEmpty else { continue }
                let place = "\(deleted.entity.name).\(relationship.name)"
                switch relationship.deleteRule {
                case .deny:
                    return "\(place) has the deny rule and holds \(staying.count) object(s)"
                case .noAction:
                    continue
                case .nullify, .cascade:
                    guard let inverse = relationship.inverse else { continue }
                    for destination in staying {
                        let side = "\(destination.entity.name).\(inverse.name)"
                        if !inverse.isToMany {
                            if !inverse.isOptional { return "\(place) nullifies \(side), which is required" }
                            continue
                        }
                        let remaining = destination.relatedObjects(inverse).filter {
                            !doomed.contains($0.objectID)
                        }.count
                        // As the save validates: an optional to-many may be empty whatever its minimum.
                        let minimum =
                            inverse.isOptional && remaining == 0
                            ? 0 : max(inverse.minCount, inverse.isOptional ? 0 : 1)
                        if remaining < minimum {
                            return "\(place) nullifies \(side), leaving \(remaining) object(s), "
                                + "fewer than its minimum of \(minimum)"
                        }
                    }
                }
            }
        }
        return nil
    }
}
