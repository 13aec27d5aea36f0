import Foundation
import ObjectStack

/// A random fetch over a `RandomSchema`: a predicate format string with its arguments, sort keys, and a
/// window — printable, so a failing case can be read and replayed.
struct RandomQuery: CustomStringConvertible {
    let entity: String
    let format: String?
    let arguments: [Any]
    let sortKeys: [SortKey]
    let limit: Int
    let offset: Int

    var description: String {
        let args = arguments.map { "\($0)" }.joined(separator: ", ")
        let sorts = sortKeys.map(\.description).joined(separator: ", ")
        return
            "\(entity) where \(format ?? "TRUEPREDICATE") [\(args)] sorted by [\(sorts)] limit \(limit) offset \(offset)"
    }

    func request() throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let format { request.predicate = try FetchPredicate(format: format, argumentArray: arguments) }
        request.sortDescriptors = sortKeys
        request.fetchLimit = limit
        request.fetchOffset = offset
        return request
    }

    static func make(_ schema: RandomSchema, using random: inout SeededGenerator) -> RandomQuery {
        var builder = Builder(schema: schema)
        let onGroup = random.chance(0.2)
        let entity = onGroup ? "Group" : (schema.hasSubentity && random.chance(0.2) ? "SpecialItem" : "Item")
        let format =
            random.chance(0.1) ? nil : builder.predicate(onGroup: onGroup, entity: entity, depth: 0, using: &random)
        var sortKeys: [SortKey] = []
        let sortable =
            onGroup
            ? ["name", "rank", "serial"]
            : schema.fields.filter { !$0.onSubentity || entity == "SpecialItem" }.map(\.name) + [
                "group.name", "group.rank",
            ]
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            sortKeys.append(
                SortKey(random.pick(sortable), ascending: random.chance(0.5), caseInsensitive: random.chance(0.2)))
        }
        let windowed = random.chance(0.3)
        return RandomQuery(
            entity: entity, format: format, arguments: builder.arguments, sortKeys: sortKeys,
            limit: windowed ? Int.random(in: 0...10, using: &random) : 0,
            offset: windowed ? Int.random(in: 0...5, using: &random) : 0)
    }

    /// Builds a format string and collects its `%@` arguments in order.
    private struct Builder {
        let schema: RandomSchema
        var arguments: [Any] = []

        mutating func predicate(onGroup: Bool, entity: String, depth: Int, using random: inout SeededGenerator)
            -> String
        {
            if depth < 2 && random.chance(0.35) {
                let left = predicate(onGroup: onGroup, entity: entity, depth: depth + 1, using: &random)
                if random.chance(0.2) { return "NOT (\(left))" }
                let right = predicate(onGroup: onGroup, entity: entity, depth: depth + 1, using: &random)
                return "(\(left)) \(random.chance(0.5) ? "AND" : "OR") (\(right))"
            }
            return onGroup ? groupLeaf(using: &random) : itemLeaf(entity: entity, using: &random)
        }

        private func fields(for entity: String) -> [RandomSchema.Field] {
            schema.fields.filter { !$0.onSubentity || entity == "SpecialItem" }
        }

        mutating func itemLeaf(entity: String, using random: inout SeededGenerator) -> String {
            switch Int.random(in: 0..<14, using: &random) {
            case 13:
                // A key path without the variable inside SUBQUERY is the evaluated item's, not the member's.
                let numeric = numericFields(for: entity).map(\.name)
                let own = random.pick(["serial"] + numeric)
                let inner =
                    "$o.\(random.pick(["serial"] + numericFields(for: "Item").map(\.name))) "
                    + "\(random.pick(["<", ">", "==", "!="])) \(own)\(random.pick(["", " ** 2", " - 3", " * %@"]))"
                if inner.hasSuffix("%@") { arguments.append(random.pick([0.5, 2, -1] as [Any])) }
                let count = Int.random(in: 0...3, using: &random)
                return "SUBQUERY(group.items, $o, \(inner)).@count \(random.pick([">", "==", "<"])) \(count)"
            case 10, 11:
                let keys = ["serial", "group.rank"] + numericFields(for: entity).map(\.name)
                return arithmeticComparison(keys, using: &random)
            case 12:
                let k = Int.random(in: 0...3, using: &random)
                return random.pick([
                    "group.items[FIRST] == SELF", "group.items[LAST] != SELF", "group.items[SIZE] > \(k + 3)",
                    "group.items[\(k)].serial < serial", "group.items[LAST].serial - serial >= \(k)",
                    "group.items[\(k)] == nil",
                ])
            case 0:
                return random.chance(0.5) ? "group == nil" : "group != nil"
            case 1:
                return comparison("group.name", type: .string, optional: true, using: &random)
            case 2:
                return comparison("group.rank", type: .integer32, optional: true, using: &random)
            default:
                let field = random.pick(fields(for: entity))
                return comparison(field.name, type: field.type, optional: field.isOptional, using: &random)
            }
        }

        mutating func groupLeaf(using random: inout SeededGenerator) -> String {
            let field = random.pick(schema.fields.filter { !$0.onSubentity })
            switch Int.random(in: 0..<13, using: &random) {
            case 11:
                // Bare `rank`, `serial` and `name` inside the SUBQUERY are the group's (the evaluated object's).
                let inner: String
                if field.type == .string {
                    inner =
                        "$i.\(field.name) \(random.pick(["==", "!=", "BEGINSWITH", "CONTAINS"]))"
                        + "\(random.pick(["", "[c]", "[cd]"])) name"
                } else if numericFields(for: "Item").contains(where: { $0.name == field.name }) {
                    inner =
                        "$i.\(field.name) \(random.pick(["<", ">", "==", ">="])) \(random.pick(["rank", "serial", "rank ** 2"]))"
                } else {
                    inner =
                        "$i.serial \(random.pick(["<", ">", "=="])) \(random.pick(["rank", "serial * 3", "rank - serial"]))"
                }
                let count = Int.random(in: 0...2, using: &random)
                return "SUBQUERY(items, $i, \(inner)).@count \(random.pick([">", "==", ">="])) \(count)"
            case 12:
                // Nested: the inner SUBQUERY's bare key is still the group's.
                let op = random.pick(["<", ">", "=="])
                return "SUBQUERY(items, $i, SUBQUERY($i.group.items, $j, $j.serial \(op) $i.serial + rank).@count > 0)"
                    + ".@count \(random.pick([">", "=="])) \(Int.random(in: 0...2, using: &random))"
            case 7:
                return "items[SIZE] \(random.pick(["==", ">", "<", ">="])) \(Int.random(in: 0...6, using: &random))"
            case 8:
                let position = random.pick(["FIRST", "LAST", "0", "1", "\(Int.random(in: 2...9, using: &random))"])
                return comparison("items[\(position)].\(field.name)", type: field.type, optional: true, using: &random)
            case 9:
                return arithmeticComparison(
                    ["rank", "items[SIZE]", "items[LAST].serial", "items.@count"], using: &random)
            case 10:
                let keys = ["$i.serial"] + numericFields(for: "Item").map { "$i.\($0.name)" }
                let inner = arithmeticComparison(keys, using: &random)
                let count = Int.random(in: 0...2, using: &random)
                return "SUBQUERY(items, $i, \(inner)).@count \(random.pick([">", "=="])) \(count)"
            case 0:
                return "items.@count \(random.pick(["==", ">", "<", ">="])) \(Int.random(in: 0...6, using: &random))"
            case 1, 2:
                let quantifier = random.pick(["ANY", "ALL", "NONE"])
                return "\(quantifier) "
                    + comparison("items.\(field.name)", type: field.type, optional: field.isOptional, using: &random)
            case 3:
                let inner = comparison("$i.\(field.name)", type: field.type, optional: field.isOptional, using: &random)
                return
                    "SUBQUERY(items, $i, \(inner)).@count \(random.pick([">", "=="])) \(Int.random(in: 0...2, using: &random))"
            case 4:
                return comparison("rank", type: .integer32, optional: true, using: &random)
            default:
                return comparison("name", type: .string, optional: true, using: &random)
            }
        }

        /// The number-valued fields an entity has (booleans count as 0 and 1).
        private func numericFields(for entity: String) -> [RandomSchema.Field] {
            let numeric: [AttributeType] = [.integer16, .integer32, .integer64, .double, .float, .decimal, .boolean]
            return fields(for: entity).filter { numeric.contains($0.type) }
        }

        /// `+ - * / **` over number keys, literals (zero included, for division by zero) and `%@` arguments,
        /// compared with a constant, nil or another expression.
        mutating func arithmeticComparison(_ keys: [String], using random: inout SeededGenerator) -> String {
            let lhs = arithmetic(keys, depth: 2, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                return "\(lhs) \(random.pick(["==", "!="])) nil"
            case 1:
                return "\(lhs) \(random.pick(["<", ">=", "!="])) \(arithmetic(keys, depth: 1, using: &random))"
            default:
                let op = random.pick(["==", "!=", "<", "<=", ">", ">="])
                return "\(lhs) \(op) \(numericLiteral(using: &random))"
            }
        }

        /// An arithmetic expression of up to `depth` nested operators.
        mutating func arithmetic(_ keys: [String], depth: Int, using random: inout SeededGenerator) -> String {
            let lhs = arithmeticOperand(keys, depth: depth, using: &random)
            let op = random.pick(["+", "-", "*", "/", "**"])
            return "\(lhs) \(op) \(arithmeticOperand(keys, depth: depth, using: &random))"
        }

        private mutating func arithmeticOperand(_ keys: [String], depth: Int, using random: inout SeededGenerator)
            -> String
        {
            if depth > 0 && random.chance(0.3) { return "(" + arithmetic(keys, depth: depth - 1, using: &random) + ")" }
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return numericLiteral(using: &random)
            case 1: return "-" + random.pick(keys)
            default: return random.pick(keys)
            }
        }

        /// A number as a literal or an argument: integers, doubles (integral ones too, which divide as
        /// floating point), zero, and decimals.
        mutating func numericLiteral(using random: inout SeededGenerator) -> String {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return random.pick(["0", "2", "-3", "7", "100"])
            case 1: return random.pick(["2.0", "0.5", "-2.5", "1e10"])
            default:
                arguments.append(random.pick([0, 2, 3, 2.0, 0.1, -1, Decimal(string: "1.10")!] as [Any]))
                return "%@"
            }
        }

        /// A comparison of `key` with constants its type draws from, so that some rows match.
        mutating func comparison(
            _ key: String, type: AttributeType, optional: Bool, using random: inout SeededGenerator
        ) -> String {
            if optional && random.chance(0.1) { return "\(key) \(random.chance(0.5) ? "==" : "!=") nil" }
            let value = { (random: inout SeededGenerator) -> Any in
                RandomSchema.value(for: type, optional: false, using: &random)!
            }
            switch type {
            case .string:
                let modifier = random.pick(["", "[c]", "[d]", "[cd]"])
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    arguments.append(random.pick(["a*", "?b*", "*e*", "*SUM*", "x_y", "*%*", "??"]))
                    return "\(key) LIKE\(modifier) %@"
                case 1:
                    arguments.append(
                        random.pick([
                            "a.*", "[a-z]+", ".*e", "(?i)resume", "\\d+", "",
                            // ICU's whole-input match: anchors, line terminators, '.', (?m) and (?s).
                            ".*^b$", "^a$.*", "a$\nb", "a\n^b", "a.b", "(?s)a.b", "(?m)a$\nb", "(?m)^b$", "a$", "b$",
                            "ab$", ".*b", "a\\nb", "a\\Rb", "(?s).*", "\\Qa.b", "(?x) a b # comment",
                        ]))
                    return "\(key) MATCHES\(modifier) %@"
                case 2:
                    arguments.append([value(&random), value(&random), value(&random)])
                    return "\(key) IN\(modifier) %@"
                default:
                    let op = random.pick(["==", "!=", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS"])
                    arguments.append(key.hasPrefix("group") ? random.pick(RandomSchema.groupNames) : value(&random))
                    return "\(key) \(op)\(modifier) %@"
                }
            case .boolean:
                return "\(key) == \(random.chance(0.5) ? "YES" : "NO")"
            case .uuid:
                arguments.append(value(&random))
                return "\(key) \(random.pick(["==", "!="])) %@"
            default:
                switch Int.random(in: 0..<5, using: &random) {
                case 0:
                    arguments.append(sortedPair([value(&random), value(&random)]))
                    return "\(key) BETWEEN %@"
                case 1:
                    arguments.append([value(&random), value(&random), value(&random)])
                    return "\(key) IN %@"
                default:
                    arguments.append(value(&random))
                    return "\(key) \(random.pick(["==", "!=", "<", "<=", ">", ">="])) %@"
                }
            }
        }

        /// BETWEEN takes its bounds in order.
        private func sortedPair(_ pair: [Any]) -> [Any] {
            func number(_ value: Any) -> Double {
                switch value {
                case let value as NSNumber: return value.doubleValue
                case let value as Decimal: return NSDecimalNumber(decimal: value).doubleValue
                case let value as Date: return value.timeIntervalSince1970
                default: return 0
                }
            }
            return number(pair[0]) <= number(pair[1]) ? pair : [pair[1], pair[0]]
        }
    }
}
