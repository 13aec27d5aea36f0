import Foundation
import ObjectStack

/// One delegate call of a fetched results controller.
enum FetchedResultsEvent: CustomStringConvertible {
    case willChange
    case section(name: String, index: Int, type: FetchedResultsChangeType)
    case object(ManagedObject, indexPath: IndexPath?, type: FetchedResultsChangeType, newIndexPath: IndexPath?)
    case snapshot(sectionIdentifiers: [String], itemIdentifiers: [[ManagedObjectID]])
    case didChange

    var description: String {
        switch self {
        case .willChange: return "will"
        case .section(let name, let index, let type): return "section \(type) '\(name)' at \(index)"
        case .object(let object, let from, let type, let to):
            return "\(type) \(object.objectID) \(from.map { "\($0)" } ?? "-") -> \(to.map { "\($0)" } ?? "-")"
        case .snapshot(let names, _): return "snapshot \(names)"
        case .didChange: return "did"
        }
    }
}

/// Records every per-change delegate call.
class FetchedResultsRecorder: FetchedResultsControllerDelegate {
    var events: [FetchedResultsEvent] = []

    /// The events since the last call, and forgets them.
    func take() -> [FetchedResultsEvent] {
        defer { events = [] }
        return events
    }

    func controllerWillChangeContent(_ controller: any FetchedResultsControlling) {
        events.append(.willChange)
    }

    func controller(
        _ controller: any FetchedResultsControlling, didChange section: FetchedResultsSection,
        atSectionIndex sectionIndex: Int,
        for type: FetchedResultsChangeType
    ) {
        events.append(.section(name: section.name, index: sectionIndex, type: type))
    }

    func controller(
        _ controller: any FetchedResultsControlling, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        events.append(.object(object, indexPath: indexPath, type: type, newIndexPath: newIndexPath))
    }

    func controllerDidChangeContent(_ controller: any FetchedResultsControlling) {
        events.append(.didChange)
    }
}

/// A snapshot delegate: records each snapshot, reading its identifiers during the call (as a consumer must). It
/// inherits the per-change methods, recording too, so that any call the controller must not make shows.
final class FetchedResultsSnapshotRecorder: FetchedResultsRecorder, FetchedResultsControllerSnapshotDelegate {
    func controller(_ controller: any FetchedResultsControlling, didChangeContentWith snapshot: FetchedResultsSnapshot)
    {
        events.append(
            .snapshot(
                sectionIdentifiers: snapshot.sectionIdentifiers,
                itemIdentifiers: snapshot.sectionIdentifiers.map { snapshot.itemIdentifiers(inSection: $0) }))
    }
}

/// Results as sections of objects, compared by identity: what a table view shows.
struct SectionedResults: Equatable, CustomStringConvertible {
    var sections: [(name: String, objects: [ManagedObject])]

    static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool {
        lhs.sections.count == rhs.sections.count
            && zip(lhs.sections, rhs.sections).allSatisfy { a, b in
                a.name == b.name && a.objects.count == b.objects.count
                    && zip(a.objects, b.objects).allSatisfy { $0 === $1 }
            }
    }

    var description: String {
        sections.map { "'\($0.name)': " + $0.objects.map { "\($0.objectID)" }.joined(separator: " ") }.joined(
            separator: " | ")
    }

    /// A controller's current sections.
    init(_ controller: any FetchedResultsControlling) {
        sections = (controller.sections ?? []).map { ($0.name, $0.objects) }
    }

    /// A fresh fetch's objects, grouped into sections by runs of equal names (one unnamed section if no names).
    init(fetched objects: [ManagedObject], sectionName: ((ManagedObject) -> String)?) {
        guard let sectionName else {
            sections = [("", objects)]
            return
        }
        sections = []
        for object in objects {
            let name = sectionName(object)
            if sections.last?.name == name {
                sections[sections.count - 1].objects.append(object)
            } else {
                sections.append((name, [object]))
            }
        }
    }

    init(sections: [(name: String, objects: [ManagedObject])]) {
        self.sections = sections
    }

    /// Applies a controller's reported changes the way a table view applies a batch update: deletes at their
    /// old positions (rows, then sections, descending), then inserts at their new ones (sections, then rows,
    /// ascending), a move as a delete and an insert. Checks on the way that each change names the object that
    /// is where it says, and that a deleted section has no rows left.
    /// - Throws: `ApplyError` saying which change does not fit.
    func applying(_ events: [FetchedResultsEvent]) throws -> SectionedResults {
        guard !events.isEmpty else { return self }
        guard case .willChange = events.first, case .didChange = events.last else {
            throw ApplyError("changes not bracketed by will/did: \(events)")
        }
        var rowDeletes: [(IndexPath, ManagedObject)] = []
        var rowInserts: [(IndexPath, ManagedObject)] = []
        var sectionDeletes: [Int] = []
        var sectionInserts: [(Int, String)] = []
        var updates: [(IndexPath, IndexPath, ManagedObject)] = []
        for event in events.dropFirst().dropLast() {
            switch event {
            case .willChange, .didChange:
                throw ApplyError("nested will/did in \(events)")
            case .snapshot:
                continue
            case .section(let name, let index, .insert): sectionInserts.append((index, name))
            case .section(_, let index, .delete): sectionDeletes.append(index)
            case .section(_, _, let type): throw ApplyError("a section cannot \(type)")
            case .object(let object, let from, let type, let to):
                switch type {
                case .delete:
                    guard let from, to == nil else { throw ApplyError("delete needs only an old index path: \(event)") }
                    rowDeletes.append((from, object))
                case .insert:
                    guard let to, from == nil else { throw ApplyError("insert needs only a new index path: \(event)") }
                    rowInserts.append((to, object))
                case .move:
                    guard let from, let to else { throw ApplyError("move needs both index paths: \(event)") }
                    rowDeletes.append((from, object))
                    rowInserts.append((to, object))
                case .update:
                    guard let from, let to else { throw ApplyError("update needs both index paths: \(event)") }
                    updates.append((from, to, object))
                }
            }
        }
        var result = sections
        for (path, object) in rowDeletes + updates.map({ ($0.0, $0.2) }) {
            guard sections.indices.contains(path[0]), sections[path[0]].objects.indices.contains(path[1]),
                sections[path[0]].objects[path[1]] === object
            else { throw ApplyError("old index path \(path) does not hold \(object.objectID) (before: \(self))") }
        }
        for (path, _) in rowDeletes.sorted(by: { $0.0 > $1.0 }) {
            result[path[0]].objects.remove(at: path[1])
        }
        for index in sectionDeletes.sorted(by: >) {
            guard result.indices.contains(index), result[index].objects.isEmpty else {
                throw ApplyError("deleted section \(index) is missing or still has rows")
            }
            result.remove(at: index)
        }
        for (index, name) in sectionInserts.sorted(by: { $0.0 < $1.0 }) {
            guard index <= result.count else { throw ApplyError("inserted section \(index) is past the end") }
            result.insert((name, []), at: index)
        }
        for (path, object) in rowInserts.sorted(by: { $0.0 < $1.0 }) {
            guard result.indices.contains(path[0]), path[1] <= result[path[0]].objects.count else {
                throw ApplyError("new index path \(path) of \(object.objectID) is out of range")
            }
            result[path[0]].objects.insert(object, at: path[1])
        }
        for (_, to, object) in updates {
            guard result.indices.contains(to[0]), result[to[0]].objects.indices.contains(to[1]),
                result[to[0]].objects[to[1]] === object
            else {
                throw ApplyError("update's new index path \(to) does not hold \(object.objectID)")
            }
        }
        return SectionedResults(sections: result)
    }
}

struct ApplyError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
