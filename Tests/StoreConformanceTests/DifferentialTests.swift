import Foundation
import ObjectStack
import Testing

/// The three stores must answer every fetch alike: random models, data, predicates, sort keys and windows,
/// generated from seeds, run on each store, results compared object by object in order. Without a window the
/// selection must also be what `FetchPredicate.evaluate(with:)` selects object by object. The predicates cover
/// NSPredicate's harder corners: `MATCHES` with anchors and line terminators, bare keys inside `SUBQUERY` (the
/// evaluated object's), `**`.
///
/// CI runs `models × queriesPerModel` cases (10,000) and `models × aggregateQueriesPerModel` aggregate fetches
/// (4,000); a release run can set `STACKLAB_DIFF_MODELS` higher.
/// A failure prints the model seed and the query; `STACKLAB_DIFF_SEED` replays from another base seed.
@Suite("Differential: stores agree")
struct DifferentialTests {
    static let baseSeed = UInt64(ProcessInfo.processInfo.environment["STACKLAB_DIFF_SEED"] ?? "") ?? 20_261_121
    static let models = Int(ProcessInfo.processInfo.environment["STACKLAB_DIFF_MODELS"] ?? "") ?? 40
    static let queriesPerModel = 250

    static var modelSeeds: [UInt64] { (0..<UInt64(models)).map { baseSeed &+ $0 &* 7_919 } }

    /// What one store answered: the serials in order and the count, or the error it threw.
    enum Answer: Equatable, CustomStringConvertible {
        case rows([Int64], count: Int)
        case failed(String)

        var description: String {
            switch self {
            case .rows(let serials, let count): "\(serials) (count \(count))"
            case .failed(let error): "error: \(error)"
            }
        }

        var isFailure: Bool { if case .failed = self { true } else { false } }
    }

    /// A context on each store kind, holding the schema's seeded data.
    static func populatedContexts(_ schema: RandomSchema) throws -> [(StoreType, ManagedObjectContext)] {
        try StoreType.allCases.map { kind in
            let stack = try TestStack(kind, model: schema.model)
            let context = stack.newContext()
            try context.performAndWait { try schema.populate(context) }
            return (kind, context)
        }
    }

    @Test("random fetches return the same objects in the same order on every store", arguments: modelSeeds)
    func storesAgree(seed: UInt64) throws {
        let schema = try RandomSchema(seed: seed)
        let contexts = try Self.populatedContexts(schema)
        var random = SeededGenerator(seed: seed ^ 0x5EED)
        var compared = 0
        for index in 0..<Self.queriesPerModel {
            let query = RandomQuery.make(schema, using: &random)
            let answers = contexts.map { kind, context in
                (kind, context.performAndWait { Self.answer(query, in: context) })
            }
            let reference = answers[0].1
            for (kind, answer) in answers.dropFirst() {
                // Errors must agree in kind (every store rejects), not in wording.
                let agrees = answer == reference || (answer.isFailure && reference.isFailure)
                #expect(
                    agrees,
                    """
                    model seed \(seed), query \(index): \(query)
                      \(answers[0].0): \(reference)
                      \(kind): \(answer)
                    replay: STACKLAB_DIFF_SEED=\(Self.baseSeed) swift test --filter DifferentialTests
                    """)
            }
            if query.format != nil, query.limit == 0, query.offset == 0 {
                let (kind, context) = contexts[0]
                let evaluated = context.performAndWait { Self.evaluated(query, in: context) }
                let agrees: Bool
                switch (reference, evaluated) {
                case (.rows(let fetched, _), .rows(let selected, _)): agrees = Set(fetched) == Set(selected)
                case (.failed, .failed): agrees = true
                default: agrees = false
                }
                #expect(
                    agrees,
                    """
                    model seed \(seed), query \(index): \(query)
                      \(kind) fetch: \(reference)
                      evaluate(with:): \(evaluated)
                    replay: STACKLAB_DIFF_SEED=\(Self.baseSeed) swift test --filter DifferentialTests
                    """)
            }
            compared += 1
        }
        #expect(compared == Self.queriesPerModel)
    }

    /// The serials of the objects `evaluate(with:)` selects among all of the query's entity, in primary-key order.
    static func evaluated(_ query: RandomQuery, in context: ManagedObjectContext) -> Answer {
        do {
            let predicate = try query.request().predicate ?? FetchPredicate(value: true)
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: query.entity))
            let serials = try all.filter { try predicate.evaluate(with: $0) }.map {
                ($0.value(forKey: "serial") as? NSNumber)?.int64Value ?? -1
            }
            return .rows(serials, count: serials.count)
        } catch {
            return .failed("\(error)")
        }
    }

    static let aggregateQueriesPerModel = 100

    @Test(
        "random aggregate fetches return the same groups and values on every store (nils, empty groups, integer and decimal averages)",
        arguments: modelSeeds)
    func aggregatesAgree(seed: UInt64) throws {
        let schema = try RandomSchema(seed: seed)
        let contexts = try Self.populatedContexts(schema)
        var random = SeededGenerator(seed: seed ^ 0xA66)
        var refused = 0
        var severalGroups = 0
        var withNils = 0
        var decimals = 0
        var floatingPoint = 0
        for index in 0..<Self.aggregateQueriesPerModel {
            let query = RandomAggregateQuery.make(schema, using: &random)
            let answers = contexts.map { kind, context in
                (kind, context.performAndWait { AggregateAnswer.of(query, in: context) })
            }
            let reference = answers[0].1
            if reference.isFailure { refused += 1 }
            if case .rows(let rows) = reference {
                if rows.count > 1 { severalGroups += 1 }
                if rows.contains(where: { $0.count < query.properties.count }) { withNils += 1 }
                let cells = rows.flatMap(\.values)
                if cells.contains(where: { if case .decimal = $0 { true } else { false } }) { decimals += 1 }
                if cells.contains(where: { if case .floating = $0 { true } else { false } }) { floatingPoint += 1 }
            }
            for (kind, answer) in answers.dropFirst() {
                // Refusals happen before any store is read: the same error on every store.
                #expect(
                    answer == reference,
                    """
                    model seed \(seed), aggregate query \(index): \(query)
                      \(answers[0].0): \(reference)
                      \(kind): \(answer)
                    replay: STACKLAB_DIFF_SEED=\(Self.baseSeed) swift test --filter DifferentialTests
                    """)
            }
        }
        // Most generated queries are valid: the comparison is of results, not of refusals.
        #expect(refused < Self.aggregateQueriesPerModel / 2)
        #expect(severalGroups > Self.aggregateQueriesPerModel / 10)
        // The cases stores most easily disagree on were compared: nil values and empty groups (left out of their
        // dictionaries), floating-point averages of integers, decimal sums and averages.
        #expect(withNils > 0)
        #expect(floatingPoint > 0)
        #expect(decimals > 0 || !schema.fields.contains { $0.type == .decimal })
    }

    static func answer(_ query: RandomQuery, in context: ManagedObjectContext) -> Answer {
        do {
            let request = try query.request()
            let objects = try context.fetch(request)
            let serials = objects.map { ($0.value(forKey: "serial") as? NSNumber)?.int64Value ?? -1 }
            return .rows(serials, count: try context.count(for: request))
        } catch {
            return .failed("\(error)")
        }
    }
}
