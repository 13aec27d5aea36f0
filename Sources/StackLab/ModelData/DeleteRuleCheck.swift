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
enum DeleteRuleCheck {
    /// The most objects a cascade is followed through before the delete is refused as too large to check.
    static let maximumCascade = 10_000

    /// Why deleting `object` would fail the save, nil when it would not. `sparing` are objects that must not be
    /// deleted with it (objects the same save updates, say); a cascade reaching one refuses. Call on the
    /// object's context's queue.
    static func refusal(deleting object: ManagedObject, sparing: Set<ManagedObjectID> = []) -> String? {
        var doomed: Set<ManagedObjectID> = [object.objectID]
        var objects = [object]
        var queue = [object]
        while let next = queue.popLast() {
            for relationship in next.entity.relationships
            where relationship.deleteRule == .cascade && !relationship.isTransient {
                for destination in ModelObjectInserter.related(next, relationship)
                where doomed.insert(destination.objectID).inserted {
                    if sparing.contains(destination.objectID) {
                        return
                            "its cascade through \(next.entity.name).\(relationship.name) reaches an object this save updates"
                    }
                    guard doomed.count <= maximumCascade else {
                        return "its cascade deletes more than \(maximumCascade) objects"
                    }
                    objects.append(destination)
                    queue.append(destination)
                }
            }
        }
        for deleted in objects {
            for relationship in deleted.entity.relationships where !relationship.isTransient {
                let staying = ModelObjectInserter.related(deleted, relationship).filter {
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
                        let remaining = ModelObjectInserter.related(destination, inverse).filter {
                            !doomed.contains($0.objectID)
                        }.count
                        // As the save validates: an optional to-many may be empty whatever its minimum.
                        let minimum =
                            inverse.isOptional && remaining == 0
                            ? 0 : max(inverse.minCount, inverse.isOptional ? 0 : 1)
                        if remaining < minimum {
                            return
                                "\(place) nullifies \(side), leaving \(remaining) object(s), fewer than its minimum of \(minimum)"
                        }
                    }
                }
            }
        }
        return nil
    }
}
