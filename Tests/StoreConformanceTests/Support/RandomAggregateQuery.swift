import Foundation
import ObjectStack

/// A random aggregate fetch over a `RandomSchema`: group-by keys (attributes of every type, a to-one, a key path
/// through it), aggregates of random functions and key paths (some of types they refuse, some unknown functions,
/// some with a result type), a `havingPredicate`, sort keys on keys and aggregates, a window, and a predicate from
/// `RandomQuery` — printable, so a failing case can be read and replayed.
struct RandomAggregateQuery: CustomStringConvertible {
    let entity: String
    let format: String?
    let arguments: [Any]
    let properties: [FetchProperty]
    let groupBy: [String]
    let having: String?
    let havingArguments: [Any]
    let sortKeys: [SortKey]
    let limit: Int
    let offset: Int

    var description: String {
        let fetched = properties.map { property -> String in
            switch property {
            case .keyPath(let path): return path
            case .expression(let description): return description.description
            }
        }
        let args = arguments.map { "\($0)" }.joined(separator: ", ")
        return "\(entity) [\(fetched.joined(separator: "; "))] where \(format ?? "TRUEPREDICATE") [\(args)]"
            + " group by [\(groupBy.joined(separator: ", "))] having \(having ?? "-") \(havingArguments)"
            + " sorted by [\(sortKeys.map(\.description).joined(separator: ", "))] limit \(limit) offset \(offset)"
    }

    func request() throws -> FetchRequest<[String: Any]> {
        var request = FetchRequest<[String: Any]>(entityName: entity)
        if let format { request.predicate = try FetchPredicate(format: format, argumentArray: arguments) }
        request.propertiesToFetch = properties
        request.propertiesToGroupBy = groupBy.isEmpty ? nil : groupBy
        if let having { request.havingPredicate = try FetchPredicate(format: having, argumentArray: havingArguments) }
        request.sortDescriptors = sortKeys
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    static let functions = ["count:", "count:", "sum:", "sum:", "min:", "max:", "average:", "average:"]
    static let resultTypes: [AttributeType] = [.integer64, .integer16, .double, .decimal, .boolean]

    static func make(_ schema: RandomSchema, using random: inout SeededGenerator) -> RandomAggregateQuery {
        let base = RandomQuery.make(schema, using: &random)
        let onGroup = base.entity == "Group"
        let fields = schema.fields.filter { !$0.onSubentity || base.entity == "SpecialItem" }
        let keyPaths =
            onGroup
            ? ["name", "rank", "serial"] : fields.map(\.name) + ["serial", "group", "group.name", "group.rank"]
        let arguments = onGroup ? ["rank", "serial", "name"] : fields.map(\.name) + ["serial", "group.rank", "group"]
        let numeric: Set<AttributeType> = [.integer16, .integer32, .integer64, .double, .float, .decimal, .boolean]
        let numbers =
            onGroup
            ? ["rank", "serial"] : fields.filter { numeric.contains($0.type) }.map(\.name) + ["serial", "group.rank"]

        var groupBy: [String] = []
        if random.chance(0.75) {
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                let key = random.pick(keyPaths)
                if !groupBy.contains(key) { groupBy.append(key) }
            }
        }
        var properties: [FetchProperty] = groupBy.map(FetchProperty.keyPath)
        var names: [String] = []
        for index in 0..<Int.random(in: 1...3, using: &random) {
            var function = random.pick(functions)
            if random.chance(0.03) { function = random.pick(["median:", "frobnicate:"]) }
            // Mostly what the function takes; now and then what it refuses (a sum of strings, a max of a to-one).
            var argument = random.pick(arguments)
            if random.chance(0.9) {
                switch function {
                case "sum:", "average:": argument = random.pick(numbers)
                case "min:", "max:": argument = random.pick(arguments.filter { $0 != "group" })
                default: break
                }
            }
            let name = "a\(index)"
            names.append(name)
            let resultType =
                random.chance(0.15) ? random.pick(resultTypes + (random.chance(0.2) ? [.string] : [])) : nil
            properties.append(
                .expression(
                    ExpressionDescription(
                        name: name, expression: .function(function, [.keyPath(argument)]),
                        expressionResultType: resultType)))
        }
        if random.chance(0.02), let first = keyPaths.first {
            // A fetched key that is not grouped: refused by every store alike.
            properties.append(.keyPath(first))
        }
        properties.shuffle(using: &random)

        var having: String?
        var havingArguments: [Any] = []
        if !groupBy.isEmpty, random.chance(0.35) {
            let name = random.pick(names)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                having =
                    "$\(name) \(random.pick([">", ">=", "==", "!=", "<"])) \(Int.random(in: 0...3, using: &random))"
            case 1:
                having = "$\(name) \(random.pick(["==", "!="])) nil"
            case 2:
                havingArguments = [random.pick([0, 1, 2.5, Decimal(string: "1.10")!] as [Any])]
                having = "$\(name) >= %@ OR \(random.pick(groupBy)) == nil"
            default:
                having = "\(random.pick(groupBy)) != nil AND $\(name) > 0"
            }
        }
        var sortKeys: [SortKey] = []
        for _ in 0..<(random.chance(0.5) ? Int.random(in: 1...2, using: &random) : 0) {
            sortKeys.append(
                SortKey(
                    random.pick(groupBy + names), ascending: random.chance(0.5), caseInsensitive: random.chance(0.15)))
        }
        let windowed = random.chance(0.3)
        return RandomAggregateQuery(
            entity: base.entity, format: random.chance(0.6) ? base.format : nil,
            arguments: base.arguments, properties: properties, groupBy: groupBy, having: having,
            havingArguments: havingArguments, sortKeys: sortKeys,
            limit: windowed ? Int.random(in: 0...4, using: &random) : 0,
            offset: windowed ? Int.random(in: 0...3, using: &random) : 0)
    }
}

/// What one store answered for an aggregate fetch, comparable across stores: each dictionary's values by key,
/// floating-point numbers within a relative 1e-9 (sums depend on the order rows are added in), objects by
/// their `serial`.
enum AggregateAnswer: Equatable, CustomStringConvertible {
    enum Cell: Equatable, CustomStringConvertible {
        case integer(Int64)
        case floating(Double)
        case decimal(Decimal)
        case text(String)

        static func == (lhs: Cell, rhs: Cell) -> Bool {
            switch (lhs, rhs) {
            case (.integer(let a), .integer(let b)): return a == b
            case (.decimal(let a), .decimal(let b)): return a == b
            case (.text(let a), .text(let b)): return a == b
            case (.floating(let a), .floating(let b)):
                return a == b || abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1)
            default: return false
            }
        }

        var description: String {
            switch self {
            case .integer(let v): return "\(v)"
            case .floating(let v): return "\(v)"
            case .decimal(let v): return "\(v)d"
            case .text(let v): return "\"\(v)\""
            }
        }
    }

    case rows([[String: Cell]])
    case failed(String)

    var isFailure: Bool { if case .failed = self { true } else { false } }

    var description: String {
        switch self {
        case .failed(let error): return "error: \(error)"
        case .rows(let rows):
            return rows.map { row in
                "{" + row.keys.sorted().map { "\($0): \(row[$0]!)" }.joined(separator: ", ") + "}"
            }.joined(separator: " ")
        }
    }

    /// The answer of a context's store to a query.
    static func of(_ query: RandomAggregateQuery, in context: ManagedObjectContext) -> AggregateAnswer {
        do {
            let rows = try context.fetch(try query.request())
            return .rows(rows.map { $0.mapValues { cell($0, context) } })
        } catch {
            return .failed("\(error)")
        }
    }

    private static func cell(_ value: Any, _ context: ManagedObjectContext) -> Cell {
        switch value {
        case let flag as Bool: return .text(flag ? "true" : "false")
        case let decimal as Decimal: return .decimal(decimal)
        case let id as ManagedObjectID:
            let serial = context.object(with: id).value(forKey: "serial") as? NSNumber
            return .text("\(id.entityName) #\(serial?.int64Value ?? -1)")
        case let number as NSNumber:
            switch String(cString: number.objCType) {
            case "f", "d": return .floating(number.doubleValue)
            default: return .integer(number.int64Value)
            }
        default: return .text("\(value)")
        }
    }
}
