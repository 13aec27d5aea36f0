import Foundation
import LabCore
import ObjectStack

extension MergeCostWorkload {
    /// What one background save changed, in objects of the first screen's entity (its sub-entities' included).
    private struct Round: Sendable {
        var inserted = 0
        var updated = 0
        var deleted = 0
        var refused = 0
        var gone: [ManagedObjectID] = []
    }

    /// The merges on a model file: the population seeded, the first screen's objects registered in the main
    /// context with a fetched results controller on its fetch, then `merges` background saves of `changes`
    /// changes to its entity, each brought into the main context the strategy's way.
    /// - Throws: `LabError.workloadFailed` when, after the merges, the main context, its controller and the store
    ///   disagree on the entity's objects; what seeding, inserting and saving throw.
    @MainActor
    func run(_ session: RunSession, on modelFile: ModelFileRun) async throws -> WorkloadOutcome {
        let stack = session.stack
        let observing = session.text("observer") ?? "frc"
        if observing == "frc", modelFile.screen.sort.isEmpty {
            // As in Core Data, a fetched results controller needs sort descriptors.
            throw LabError(
                .invalidScenario,
                "merge-cost's fetched results controller needs a sorted first screen, but \(modelFile.screen.entity.name) "
                    + "has no sortable attribute; name a first_screen entity with one, or set observer: none")
        }
        _ = try modelFile.seed(stack)
        let registered = session.integer("registered")
        let third = session.integer("changes") / 3
        let merges = session.integer("merges")
        let screen = modelFile.screen
        let listed = Set(screen.entity.selfAndDescendants.map(\.name))
        let updater = try ModelObjectUpdater(modelFile, seed: session.seed &+ 1)
        let inserter = try ModelObjectInserter(
            plan: modelFile.plan, entity: updater.entityName, seed: session.seed &+ 2)

        let main = stack.main
        // The main context registers the first screen's first `registered` objects, materialised.
        let held: [ManagedObject] = try main.performAndWait {
            var request = screen.request()
            request.fetchLimit = registered
            request.returnsObjectsAsFaults = false
            return registered > 0 ? try main.fetch(request) : []
        }
        let observer = try MainContextObservers.attach(observing, to: main, request: screen.request())
        let seeded = try await modelFile.storedCount(stack)
        let background = try stack.newBackgroundContext()
        let candidates: [ManagedObjectID] = try await background.perform {
            var request = FetchRequest<ManagedObjectID>(entityName: updater.entityName)
            request.includesSubentities = false
            return try background.fetch(request)
        }

        let (total, wall) = try await session.measure { _ in
            var total = Round()
            var gone = Set<ManagedObjectID>()
            for merge in 0..<merges {
                // Updates walk the live objects from the front, deletes take them from the back, never the same.
                let live = candidates.filter { !gone.contains($0) }
                let updates =
                    live.isEmpty || !updater.canUpdate
                    ? [] : (0..<min(third, live.count)).map { live[(merge * third + $0) % live.count] }
                let spared = Set(updates)
                let backward = live.reversed().filter { !spared.contains($0) }
                let round = try await background.perform { () throws -> Round in
                    var round = Round()
                    _ = try inserter.insert(third, into: background)
                    round.updated = try updater.update(
                        updates.map { background.object(with: $0) }, offset: merge * third, round: merge)
                    var deletes = 0
                    for id in backward where deletes < third {
                        let object = background.object(with: id)
                        if object.isDeleted { continue }  // an earlier delete of this save cascaded to it
                        let doomed = DeleteRuleCheck.cascade(of: object)
                        // Never an object this save updates: its update would vanish uncounted.
                        if doomed.contains(where: { spared.contains($0.objectID) }) { continue }
                        if DeleteRuleCheck.refusal(deleting: doomed) != nil {
                            round.refused += 1
                            continue
                        }
                        background.delete(object)
                        // The rules run now, so the next candidate's check sees what this delete left.
                        background.processPendingChanges()
                        deletes += 1
                    }
                    background.processPendingChanges()
                    round.inserted = background.insertedObjects.filter { listed.contains($0.entity.name) }.count
                    let deleted = background.deletedObjects.filter { listed.contains($0.entity.name) }
                    round.deleted = deleted.count
                    round.gone = deleted.map(\.objectID)
                    try stack.save(background)
                    background.reset()
                    return round
                }
                total.inserted += round.inserted
                total.updated += round.updated
                total.deleted += round.deleted
                total.refused += round.refused
                gone.formUnion(round.gone)
                try await stack.drainMainQueue()
            }
            return total
        }
        let expected = seeded + total.inserted - total.deleted
        try await checkMerged(
            expected: expected, seeded: seeded, total: total, observer: observer, screen: screen, stack: stack)
        withExtendedLifetime((held, observer)) {}
        return WorkloadOutcome(
            wallMilliseconds: wall, objects: total.inserted + total.updated + total.deleted,
            storedObjects: try await modelFile.storedCount(stack),
            metrics: [
                .inserted: Double(total.inserted), .deleted: Double(total.deleted),
                .deletesRefused: Double(total.refused),
            ])
    }

    /// Checks that every save reached the main context, its fetched results controller and the store: each holds
    /// the seeded objects plus those inserted minus those deleted.
    @MainActor
    private func checkMerged(
        expected: Int, seeded: Int, total: Round, observer: (any MainContextObserver)?, screen: FirstScreen,
        stack: LabStack
    ) async throws {
        let name = screen.entity.name
        let main = stack.main
        var all = screen.request()
        all.fetchLimit = 0
        let (inMain, screenRows, listedRows) = try main.performAndWait {
            (
                try main.count(for: FetchRequest<ManagedObject>(entityName: name)), try main.count(for: all),
                observer?.listedCount
            )
        }
        let store = ManagedObjectContext(concurrencyType: .privateQueue)
        store.persistentStoreCoordinator = stack.primaryCoordinator
        let inStore = try await store.perform {
            try store.count(for: FetchRequest<ManagedObject>(entityName: name))
        }
        let changes = "\(seeded) seeded + \(total.inserted) inserted - \(total.deleted) deleted"
        guard inMain == expected, inStore == expected else {
            throw LabError(
                .workloadFailed,
                "after the merges the main context holds \(inMain) \(name) objects and the store \(inStore); "
                    + "expected \(expected) (\(changes))")
        }
        if let listedRows, listedRows != screenRows {
            throw LabError(
                .workloadFailed,
                "after the merges the fetched results controller lists \(listedRows) \(name) objects, but the main "
                    + "context's first-screen fetch finds \(screenRows) (\(changes)): a merge did not reach it")
        }
    }
}
