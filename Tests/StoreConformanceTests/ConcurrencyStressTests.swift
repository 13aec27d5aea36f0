import Foundation
import ObjectStack
import Synchronization
import Testing

/// Many contexts — on one coordinator and on separate stacks over the same store — transfer money between
/// accounts concurrently for a bounded time, merging each other's saves, under optimistic locking with the
/// `.error` policy and retry. Afterwards: no update lost (the total is conserved and every balance equals
/// its transfers), every inverse consistent, and a context that merged every save agrees with the store.
@Suite("Concurrency stress")
struct ConcurrencyStressTests {
    /// CI's duration per store; `STACKLAB_STRESS_SECONDS=60` for a release run.
    static let seconds = Double(ProcessInfo.processInfo.environment["STACKLAB_STRESS_SECONDS"] ?? "") ?? 2
    static let accounts = 12
    static let initialBalance: Int64 = 1_000

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Account",
                attributes: [
                    AttributeDescription(name: "number", type: .integer64, isOptional: false),
                    AttributeDescription(name: "balance", type: .integer64, isOptional: false),
                ],
                relationships: [
                    RelationshipDescription(name: "outgoing", destination: "Transfer", inverse: "from", isToMany: true),
                    RelationshipDescription(name: "incoming", destination: "Transfer", inverse: "to", isToMany: true),
                ]),
            EntityDescription(
                name: "Transfer",
                attributes: [
                    AttributeDescription(name: "amount", type: .integer64, isOptional: false)
                ],
                relationships: [
                    RelationshipDescription(
                        name: "from", destination: "Account", inverse: "outgoing", isOptional: false),
                    RelationshipDescription(name: "to", destination: "Account", inverse: "incoming", isOptional: false),
                ]),
        ])
    }

    @Test(
        "concurrent transfers on shared and separate stacks lose no update and keep every inverse",
        arguments: StoreType.allCases)
    func transfers(kind: StoreType) throws {
        let base = try TestStack(kind, model: Self.model())
        let setup = base.newContext()
        try setup.performAndWait {
            for number in 0..<Self.accounts {
                let account = try setup.insertNewObject(forEntityName: "Account")
                try account.setValue(Int64(number), forKey: "number")
                try account.setValue(Self.initialBalance, forKey: "balance")
            }
            try setup.save()
        }
        // Two workers share the base coordinator; two more have a stack each on the same store.
        let stacks = [base, base, try base.separateStack(), try base.separateStack()]
        let workers = stacks.map { stack in
            let context = stack.newContext()
            context.mergePolicy = .error
            return context
        }
        // One context merges every worker's saves, as a UI context would.
        let observer = base.newContext()
        let tokens = workers.map { worker in
            NotificationCenter.default.addObserver(
                forName: ManagedObjectContext.didSaveNotification, object: worker, queue: nil
            ) { note in
                observer.performAndWait { observer.mergeChanges(fromContextDidSave: note) }
            }
        }
        defer { tokens.forEach(NotificationCenter.default.removeObserver) }
        try observer.performAndWait { _ = try observer.fetch(FetchRequest<ManagedObject>(entityName: "Account")) }

        let deadline = Date().addingTimeInterval(Self.seconds)
        let saved = Atomic<Int>(0)
        let conflicts = Atomic<Int>(0)
        let failures = LockedValue<[String]>([])
        DispatchQueue.concurrentPerform(iterations: workers.count) { index in
            let worker = workers[index]
            var random = SeededGenerator(seed: UInt64(index + 1))
            while Date() < deadline {
                let from = Int64.random(in: 0..<Int64(Self.accounts), using: &random)
                let to = (from + Int64.random(in: 1..<Int64(Self.accounts), using: &random)) % Int64(Self.accounts)
                let amount = Int64.random(in: 1...50, using: &random)
                do {
                    let done = try worker.performAndWait { try Self.transfer(amount, from: from, to: to, in: worker) }
                    if done { saved.add(1, ordering: .relaxed) } else { conflicts.add(1, ordering: .relaxed) }
                } catch {
                    failures.withLock { $0.append("worker \(index): \(error)") }
                    return
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(saved.load(ordering: .relaxed) > 0)

        let checker = try base.separateStack().newContext()
        try checker.performAndWait {
            let accounts = try checker.fetch(FetchRequest<ManagedObject>(entityName: "Account"))
            let transfers = try checker.fetch(FetchRequest<ManagedObject>(entityName: "Transfer"))
            #expect(
                transfers.count == saved.load(ordering: .relaxed), "every successful save left exactly one transfer")
            let balances = accounts.map { ($0.value(forKey: "balance") as! NSNumber).int64Value }
            #expect(balances.reduce(0, +) == Int64(Self.accounts) * Self.initialBalance, "money is conserved")
            for account in accounts {
                let outgoing = account.value(forKey: "outgoing") as! Set<ManagedObject>
                let incoming = account.value(forKey: "incoming") as! Set<ManagedObject>
                #expect(outgoing.allSatisfy { $0.value(forKey: "from") as? ManagedObject === account })
                #expect(incoming.allSatisfy { $0.value(forKey: "to") as? ManagedObject === account })
                let net =
                    incoming.reduce(0) { $0 + ($1.value(forKey: "amount") as! NSNumber).int64Value }
                    - outgoing.reduce(0) { $0 + ($1.value(forKey: "amount") as! NSNumber).int64Value }
                #expect(
                    (account.value(forKey: "balance") as! NSNumber).int64Value == Self.initialBalance + net,
                    "account \(account.value(forKey: "number")!): balance follows its transfers")
            }
            let storeBalances = Dictionary(
                uniqueKeysWithValues: accounts.map {
                    (
                        ($0.value(forKey: "number") as! NSNumber).int64Value,
                        ($0.value(forKey: "balance") as! NSNumber).int64Value
                    )
                })
            try observer.performAndWait {
                for account in try observer.fetch(FetchRequest<ManagedObject>(entityName: "Account")) {
                    let number = (account.value(forKey: "number") as! NSNumber).int64Value
                    #expect(
                        (account.value(forKey: "balance") as! NSNumber).int64Value == storeBalances[number],
                        "the merging context sees account \(number) as the store has it")
                }
            }
        }
    }

    /// Moves `amount` between two accounts and saves; false when another context got there first.
    static func transfer(_ amount: Int64, from: Int64, to: Int64, in context: ManagedObjectContext) throws -> Bool {
        var request = FetchRequest<ManagedObject>(entityName: "Account")
        request.predicate = try FetchPredicate(format: "number IN %@", [from, to])
        let accounts = try context.fetch(request)
        let source = try #require(accounts.first { ($0.value(forKey: "number") as! NSNumber).int64Value == from })
        let target = try #require(accounts.first { ($0.value(forKey: "number") as! NSNumber).int64Value == to })
        let transfer = try context.insertNewObject(forEntityName: "Transfer")
        try transfer.setValue(amount, forKey: "amount")
        try transfer.setValue(source, forKey: "from")
        try transfer.setValue(target, forKey: "to")
        try source.setValue((source.value(forKey: "balance") as! NSNumber).int64Value - amount, forKey: "balance")
        try target.setValue((target.value(forKey: "balance") as! NSNumber).int64Value + amount, forKey: "balance")
        do {
            try context.save()
            return true
        } catch let error as ObjectStackError where error.code == .mergeConflict {
            // Optimistic locking caught a stale read: start over from the store's values.
            context.rollback()
            context.refreshAllObjects()
            return false
        }
    }
}
