import Foundation
import ObjectStack

/// Compiles bound predicates, key paths and sort keys to SQL with the semantics of `PredicateEvaluator`.
///
/// Every compiled condition yields exactly 0 or 1, never NULL, so `NOT` and nesting behave as the evaluator
/// does (SQL's three-valued logic would otherwise turn `NOT (rank >= 3)` false on a nil rank). Key paths
/// across to-one relationships become correlated scalar subqueries; collections (to-many steps, `SUBQUERY`)
/// become correlated `EXISTS` / aggregate subqueries over key columns and join tables.
/// - Note: Not thread-safe; one compiler per query.
final class SQLitePredicateCompiler {
    /// A row a key path can start from: the fetched row, a joined row, or a SUBQUERY variable's member.
    struct RowRef {
        let alias: String
        let entity: EntityDescription
    }

    struct Scope {
        var row: RowRef
        var variables: [String: RowRef] = [:]
    }

    /// What kind of value an SQL expression yields, which decides how it compares.
    enum Kind: Equatable {
        case null, number, string, date, data, uuid, uri
        case object(root: String)
    }

    /// One value as SQL.
    struct Operand {
        var fragment: SQLFragment
        var kind: Kind
        /// The value, when the operand is a constant.
        var constant: StoreValue?
        /// Whether the operand is a column of a row in scope (so an index may serve a comparison on it).
        var isColumn = false
        /// Whether the operand is a decimal or date column: NUMERIC affinity (Core Data's DECIMAL and TIMESTAMP)
        /// keeps a whole value as an INTEGER, which arithmetic must read as REAL (3 / 2 would truncate).
        var isNumericAffinity = false
    }

    /// Values reached through a to-many: rows of `source` (`FROM … WHERE …`), each with `value`.
    struct Collection {
        var source: SQLFragment
        var value: Operand
        /// The member row, when the collection holds objects.
        var member: RowRef?
    }

    enum Compiled {
        case single(Operand)
        case collection(Collection)
        case list([StoreValue])
    }

    let schema: SQLiteSchema
    let storeIdentifier: String
    /// Columns named otherwise than the schema names them, by attribute: an aggregate fetch's result columns,
    /// which its `HAVING` and `ORDER BY` read as the attributes of its column entity.
    var columnAliases: [ObjectIdentifier: String] = [:]
    private var aliasCount = 0

    init(schema: SQLiteSchema, storeIdentifier: String) {
        self.schema = schema
        self.storeIdentifier = storeIdentifier
    }

    private func newAlias() -> String {
        aliasCount += 1
        return "a\(aliasCount)"
    }

    // MARK: - Predicates

    /// A condition for a predicate evaluated on `scope.row`, for a `WHERE` or `HAVING` clause: it holds where the
    /// predicate does, and is 0 or NULL where it does not.
    func condition(_ predicate: BoundPredicate, _ scope: Scope) -> SQLFragment {
        condition(predicate, scope, nullIsFalse: true)
    }

    /// A condition for a predicate; with `nullIsFalse` false it is 0 or 1 (under `NOT`, where a NULL would stay
    /// NULL and so exclude a row the predicate's negation holds for), with it true it may be NULL where the predicate
    /// is false: a `WHERE` clause drops such rows either way, and a comparison of a column then needs no
    /// `IS NOT NULL` beside it (one more test per row of a scan, which the plain `>` GRDB writes does not make).
    private func condition(_ predicate: BoundPredicate, _ scope: Scope, nullIsFalse: Bool) -> SQLFragment {
        switch predicate {
        case .constant(let value): return SQLFragment(value ? "1" : "0")
        case .and(let parts):
            if parts.isEmpty { return SQLFragment("1") }
            let compiled = parts.map { condition($0, scope, nullIsFalse: nullIsFalse) }
            return "(" + SQLFragment.joined(compiled, separator: " AND ") + ")"
        case .or(let parts):
            if parts.isEmpty { return SQLFragment("0") }
            let compiled = parts.map { condition($0, scope, nullIsFalse: nullIsFalse) }
            return "(" + SQLFragment.joined(compiled, separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT " + condition(inner, scope, nullIsFalse: false) + ")"
        case .comparison(let comparison):
            return self.comparison(comparison, scope, nullIsFalse: nullIsFalse)
        }
    }

    private func comparison(_ comparison: BoundComparison, _ scope: Scope, nullIsFalse: Bool) -> SQLFragment {
        let lhs = compile(comparison.lhs, scope)
        let rhs = compile(comparison.rhs, scope)
        switch (comparison.quantifier, lhs) {
        case (.direct, .single(let value)):
            return element(value, comparison, rhs, nullIsFalse: nullIsFalse)
        case (.direct, .collection(let collection)):
            // A collection on the left (CONTAINS): membership of the right-hand value.
            guard case .single(let needle) = rhs else { return SQLFragment("0") }
            return exists(collection, where: compare(collection.value, .equal, needle, comparison.options))
        case (.direct, .list(let values)):
            guard case .single(let needle) = rhs else { return SQLFragment("0") }
            return any(values.map { compare(constant($0), .equal, needle, comparison.options) })
        case (.any, .collection(let collection)):
            return exists(collection, where: element(collection.value, comparison, rhs))
        case (.all, .collection(let collection)):
            return "(NOT " + exists(collection, where: "(NOT " + element(collection.value, comparison, rhs) + ")") + ")"
        case (.none, .collection(let collection)):
            return "(NOT " + exists(collection, where: element(collection.value, comparison, rhs)) + ")"
        case (.any, .list(let values)):
            return any(values.map { element(constant($0), comparison, rhs) })
        case (.all, .list(let values)):
            if values.isEmpty { return SQLFragment("1") }
            return "(" + SQLFragment.joined(values.map { element(constant($0), comparison, rhs) }, separator: " AND ")
                + ")"
        case (.none, .list(let values)):
            return "(NOT " + any(values.map { element(constant($0), comparison, rhs) }) + ")"
        case (_, .single(let value)):
            // A quantifier over a lone value treats it as one element, as the evaluator does.
            let hit = element(value, comparison, rhs)
            return comparison.quantifier == .none ? "(NOT " + hit + ")" : hit
        }
    }

    private func any(_ parts: [SQLFragment]) -> SQLFragment {
        if parts.isEmpty { return SQLFragment("0") }
        return "(" + SQLFragment.joined(parts, separator: " OR ") + ")"
    }

    private func exists(_ collection: Collection, where condition: SQLFragment) -> SQLFragment {
        "EXISTS (SELECT 1" + collection.source + " AND " + condition + ")"
    }

    /// One element of the left side against the right side (a value, a list, a collection or BETWEEN bounds).
    private func element(
        _ value: Operand, _ comparison: BoundComparison, _ rhs: Compiled, nullIsFalse: Bool = false
    ) -> SQLFragment {
        let options = comparison.options
        switch comparison.op {
        case .in:
            switch rhs {
            case .collection(let collection):
                return exists(collection, where: compare(value, .equal, collection.value, options))
            case .list(let values):
                return membership(value, values, options)
            case .single(let haystack):
                guard haystack.kind == .string, value.kind == .string else { return SQLFragment("0") }
                return stringFunction(.substringOf, value, haystack, options)
            }
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2 else { return SQLFragment("0") }
            return "("
                + compare(value, .greaterThanOrEqual, constant(bounds[0]), options, nullIsFalse: nullIsFalse)
                + " AND " + compare(value, .lessThanOrEqual, constant(bounds[1]), options, nullIsFalse: nullIsFalse)
                + ")"
        default:
            guard case .single(let other) = rhs else { return SQLFragment("0") }
            return compare(value, comparison.op, other, options, nullIsFalse: nullIsFalse)
        }
    }

    /// `value IN list`: an SQL `IN` when every element compares plainly, else one equality per element.
    private func membership(_ value: Operand, _ values: [StoreValue], _ options: PredicateOptions) -> SQLFragment {
        let present = values.filter { !$0.isNull }
        let plain = present.allSatisfy { element in
            let kind = constant(element).kind
            return kind == value.kind && (kind != .string || options.isEmpty)
        }
        guard plain, !present.isEmpty else {
            return any(values.map { compare(value, .equal, constant($0), options) })
        }
        let placeholders = Array(repeating: "?", count: present.count).joined(separator: ", ")
        var test =
            "(" + value.fragment + " IN (" + SQLFragment(placeholders, present.map(SQLiteStatement.sqlValue))
            + ") AND " + value.fragment + " IS NOT NULL)"
        if present.count < values.count { test = "(" + test + " OR " + value.fragment + " IS NULL)" }
        return test
    }

    // MARK: - Comparing two values

    /// `a op b` under the evaluator's rules: nil equals only nil, ordering with nil is false, unlike kinds
    /// are unequal and unordered, numbers compare by value across kinds, strings by code point after folding.
    func compare(
        _ a: Operand, _ op: PredicateOperator, _ b: Operand, _ options: PredicateOptions, nullIsFalse: Bool = false
    ) -> SQLFragment {
        if a.kind == .null || b.kind == .null {
            if a.kind == .null && b.kind == .null {
                return SQLFragment(op == .equal ? "1" : "0")
            }
            let other = a.kind == .null ? b : a
            switch op {
            case .equal: return "(" + other.fragment + " IS NULL)"
            case .notEqual: return "(" + other.fragment + " IS NOT NULL)"
            default: return SQLFragment("0")
            }
        }
        switch op {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard a.kind == .string, b.kind == .string else { return SQLFragment("0") }
            let code: SQLiteFunctions.StringOperator
            switch op {
            case .beginsWith: code = .beginsWith
            case .endsWith: code = .endsWith
            case .contains: code = .contains
            case .like: code = .like
            default: code = .matches
            }
            return stringFunction(code, a, b, options)
        case .in, .between:
            return SQLFragment("0")
        default:
            break
        }
        guard let (pa, pb, collation) = project(a, b, options) else {
            return SQLFragment(op == .notEqual ? "1" : "0")
        }
        switch op {
        case .equal: return "(" + pa + " IS " + pb + collation + ")"
        case .notEqual: return "(" + pa + " IS NOT " + pb + collation + ")"
        default:
            let symbol = op.rawValue
            // Where a NULL counts as false, the plain comparison is the condition (and the form an index serves).
            if nullIsFalse { return "(" + pa + " \(symbol) " + pb + collation + ")" }
            if a.isColumn, pa.sql == a.fragment.sql, b.constant != nil {
                // The form an index can serve; the constant is not nil, so only the column can be.
                return "(" + pa + " \(symbol) " + pb + collation + " AND " + pa + " IS NOT NULL)"
            }
            return "((" + pa + " \(symbol) " + pb + collation + ") IS 1)"
        }
    }

    /// The two sides in a form SQL compares as `ValueComparison` does, and the collation to use; nil for
    /// values of unlike kinds.
    private func project(_ a: Operand, _ b: Operand, _ options: PredicateOptions) -> (SQLFragment, SQLFragment, String)?
    {
        switch (a.kind, b.kind) {
        case (.number, .number): return (a.fragment, b.fragment, "")
        case (.string, .string):
            let folding = options.intersection([.caseInsensitive, .diacriticInsensitive])
            if folding.isEmpty { return (a.fragment, b.fragment, "") }
            return (fold(a, folding), fold(b, folding), "")
        case (let x, let y) where x == y:
            return (a.fragment, b.fragment, "")
        default:
            return nil
        }
    }

    private func fold(_ operand: Operand, _ options: PredicateOptions) -> SQLFragment {
        if case .string(let text)? = operand.constant {
            return SQLFragment("?", [.text(ValueComparison.fold(text, options))])
        }
        return "os_fold(" + operand.fragment + ", \(options.rawValue))"
    }

    private func stringFunction(
        _ op: SQLiteFunctions.StringOperator, _ text: Operand, _ pattern: Operand, _ options: PredicateOptions
    ) -> SQLFragment {
        let flags = options.intersection([.caseInsensitive, .diacriticInsensitive]).rawValue
        return "os_str(\(op.rawValue), " + text.fragment + ", " + pattern.fragment + ", \(flags))"
    }

    // MARK: - Operands

    /// A constant, bound.
    func constant(_ value: StoreValue) -> Operand {
        let kind: Kind
        switch value {
        case .null: return Operand(fragment: SQLFragment("NULL"), kind: .null, constant: value)
        // Decimals are stored as REAL (as Core Data stores them), so they compare as numbers.
        case .integer, .double, .boolean, .decimal: kind = .number
        case .string: kind = .string
        case .date: kind = .date
        case .data: kind = .data
        case .uuid: kind = .uuid
        case .uri: kind = .uri
        case .objectID(let id):
            // An object of no row here (unsaved, or another store's) equals nothing stored.
            let key = id.isTemporaryID || id.storeIdentifier != storeIdentifier ? Int64.min : id.key
            return Operand(
                fragment: SQLFragment("?", [.integer(key)]), kind: .object(root: id.entity.rootEntity.name),
                constant: value)
        }
        return Operand(fragment: SQLFragment("?", [SQLiteStatement.sqlValue(value)]), kind: kind, constant: value)
    }

    static func kind(of type: AttributeType) -> Kind {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean, .decimal: return .number
        case .string: return .string
        case .date: return .date
        case .binaryData, .transformable: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }

    func compile(_ expression: BoundExpression, _ scope: Scope) -> Compiled {
        switch expression {
        case .constant(let value): return .single(constant(value))
        case .list(let values): return .list(values)
        case .keyPath(let path): return keyPath(path, scope)
        case .subquery(let subquery):
            guard case .collection(var collection) = keyPath(subquery.collection, scope), let member = collection.member
            else {
                return .collection(Self.emptyCollection)
            }
            // The member is the variable's; key paths without a variable stay on the fetched row (NSPredicate's
            // evaluated object), at any depth.
            var inner = scope
            inner.variables[subquery.variable] = member
            collection.source = collection.source + " AND " + condition(subquery.predicate, inner)
            return .collection(collection)
        case .aggregate(let function, let inner):
            var operand = aggregate(function, compile(inner, scope))
            // TOTAL() is REAL, but `ValueComparison.aggregate` sums integers to an integer, which arithmetic
            // (integer division) can tell apart.
            if function == .sum, case .keyPath(let path) = inner, path.isCollection,
                let type = path.finalAttribute?.type, [.integer16, .integer32, .integer64].contains(type)
            {
                operand.fragment = "CAST(" + operand.fragment + " AS INTEGER)"
            }
            return .single(operand)
        case .arithmetic(let op, let lhs, let rhs):
            return .single(arithmetic(op, compile(lhs, scope), compile(rhs, scope)))
        }
    }

    /// SQLite's arithmetic is `ValueComparison.arithmetic`'s: NULL propagates, integers stay integers
    /// (division truncates), a REAL on either side or an overflow gives floating point, division by zero
    /// gives NULL. Decimals (stored as REAL) are doubles here. SQL has no power operator: `**` calls
    /// `os_pow`, which is `ValueComparison.arithmetic` itself.
    private func arithmetic(_ op: ArithmeticOperator, _ lhs: Compiled, _ rhs: Compiled) -> Operand {
        guard case .single(let a) = lhs, case .single(let b) = rhs, a.kind != .null, b.kind != .null else {
            return constant(.null)
        }
        func real(_ operand: Operand) -> SQLFragment {
            operand.isNumericAffinity ? "CAST(" + operand.fragment + " AS REAL)" : operand.fragment
        }
        if op == .power { return Operand(fragment: "os_pow(" + real(a) + ", " + real(b) + ")", kind: .number) }
        return Operand(fragment: "(" + real(a) + " \(op.rawValue) " + real(b) + ")", kind: .number)
    }

    private static let emptyCollection = Collection(
        source: SQLFragment(" FROM (SELECT NULL AS v) e WHERE 0"),
        value: Operand(fragment: SQLFragment("e.v"), kind: .null), member: nil)

    private func aggregate(_ function: AggregateFunction, _ operand: Compiled) -> Operand {
        switch operand {
        case .list(let values):
            return constant(ValueComparison.aggregate(function, values))
        case .single(let value):
            switch function {
            case .count: return Operand(fragment: "(" + value.fragment + " IS NOT NULL)", kind: .number)
            case .sum: return Operand(fragment: "COALESCE(" + value.fragment + ", 0)", kind: .number)
            case .avg: return Operand(fragment: value.fragment, kind: .number)
            case .min, .max: return value
            }
        case .collection(let collection):
            let value = collection.value
            let select: SQLFragment
            var kind = Kind.number
            switch function {
            case .count: select = SQLFragment("COUNT(*)")
            case .sum: select = "TOTAL(" + value.fragment + ")"
            case .avg: select = "AVG(" + value.fragment + ")"
            case .min, .max:
                select = (function == .min ? "MIN(" : "MAX(") + value.fragment + ")"
                kind = value.kind
            }
            return Operand(fragment: "(SELECT " + select + collection.source + ")", kind: kind)
        }
    }

    // MARK: - Key paths

    /// A key path from the scope's row (or a variable): a column, a scalar subquery across to-ones, or a
    /// collection across to-manys.
    func keyPath(_ path: BoundKeyPath, _ scope: Scope) -> Compiled {
        var start = scope.row
        if let variable = path.variable {
            guard let bound = scope.variables[variable] else { return .single(constant(.null)) }
            start = bound
        }
        if path.steps.isEmpty { return .single(objectOperand(start)) }
        var from: [String] = []
        var conditions: [String] = []
        var current = start
        var value: Operand?
        for (position, step) in path.steps.enumerated() {
            let isLast = position == path.steps.count - 1
            switch step {
            case .attribute(let attribute):
                if let alias = columnAliases[ObjectIdentifier(attribute)], attribute.type == .decimal {
                    // A decimal sum or average is grouped as exact text (`os_sum`, `os_avg`): it compares and sorts
                    // as the number it spells.
                    value = Operand(
                        fragment: SQLFragment("CAST(\(current.alias).\(alias) AS REAL)"), kind: .number)
                    continue
                }
                let column = columnAliases[ObjectIdentifier(attribute)] ?? schema.column(attribute)
                value = Operand(
                    fragment: SQLFragment("\(current.alias).\(column)"),
                    kind: Self.kind(of: attribute.type), isColumn: true,
                    isNumericAffinity: attribute.type == .decimal || attribute.type == .date)
            case .toOne(let relationship):
                let key = "\(current.alias).\(schema.column(relationship))"
                if isLast {
                    value = Operand(
                        fragment: SQLFragment(key),
                        kind: .object(root: relationship.destinationEntity.rootEntity.name), isColumn: true)
                } else {
                    let next = RowRef(alias: newAlias(), entity: relationship.destinationEntity)
                    from.append("\(SQLiteSchema.quote(schema.table(for: next.entity).name)) \(next.alias)")
                    conditions.append("\(next.alias).Z_PK = \(key)")
                    current = next
                }
            case .toMany(let relationship):
                let members = self.members(of: relationship, from: current)
                from += members.from
                conditions += members.conditions
                current = members.row
                if isLast { value = objectOperand(members.row) }
            case .element(let relationship, let position):
                // The member at a position in primary-key order, as `PredicateEvaluator` picks it.
                let members = self.members(of: relationship, from: current)
                let pk = "\(members.row.alias).Z_PK"
                let (direction, offset): (String, Int)
                switch position {
                case .first: (direction, offset) = ("ASC", 0)
                case .last: (direction, offset) = ("DESC", 0)
                case .index(let index): (direction, offset) = ("ASC", index)
                }
                let key =
                    "(SELECT \(pk) FROM " + members.from.joined(separator: ", ") + " WHERE "
                    + members.conditions.joined(separator: " AND ")
                    + " ORDER BY \(pk) \(direction) LIMIT 1 OFFSET \(offset))"
                if isLast {
                    value = Operand(
                        fragment: SQLFragment(key),
                        kind: .object(root: relationship.destinationEntity.rootEntity.name))
                } else {
                    let next = RowRef(alias: newAlias(), entity: relationship.destinationEntity)
                    from.append("\(SQLiteSchema.quote(schema.table(for: next.entity).name)) \(next.alias)")
                    conditions.append("\(next.alias).Z_PK = \(key)")
                    current = next
                }
            }
        }
        let result = value ?? constant(.null)
        if from.isEmpty { return .single(result) }
        let source = SQLFragment(
            " FROM " + from.joined(separator: ", ") + " WHERE " + conditions.joined(separator: " AND "))
        if path.isCollection {
            let member: RowRef? = if case .toMany = path.steps.last! { current } else { nil }
            return .collection(Collection(source: source, value: result, member: member))
        }
        var scalar = result
        scalar.fragment = "(SELECT " + result.fragment + source + ")"
        scalar.isColumn = false
        return .single(scalar)
    }

    /// The tables and conditions that join a row to the members of its to-many relationship.
    private func members(of relationship: RelationshipDescription, from current: RowRef)
        -> (from: [String], conditions: [String], row: RowRef)
    {
        let next = RowRef(alias: newAlias(), entity: relationship.destinationEntity)
        let table = SQLiteSchema.quote(schema.table(for: next.entity).name)
        switch relationship.storage {
        case .joinTable:
            let join = schema.joinTables[relationship.joinTableOwner.storageKey]!
            let link = newAlias()
            let columns = join.columns(for: relationship)
            let (mine, theirs) = (SQLiteSchema.quote(columns.mine), SQLiteSchema.quote(columns.theirs))
            return (
                ["\(SQLiteSchema.quote(join.name)) \(link)", "\(table) \(next.alias)"],
                ["\(link).\(mine) = \(current.alias).Z_PK", "\(next.alias).Z_PK = \(link).\(theirs)"], next
            )
        default:
            let inverse = relationship.inverse!
            return (
                ["\(table) \(next.alias)"], ["\(next.alias).\(schema.column(inverse)) = \(current.alias).Z_PK"], next
            )
        }
    }

    private func objectOperand(_ row: RowRef) -> Operand {
        Operand(
            fragment: SQLFragment("\(row.alias).Z_PK"), kind: .object(root: row.entity.rootEntity.name), isColumn: true)
    }

    /// A single-valued key path (a sort key or a property to fetch) from `row`.
    func value(_ path: BoundKeyPath, from row: RowRef) -> Operand {
        switch keyPath(path, Scope(row: row)) {
        case .single(let operand): return operand
        case .list: return constant(.null)
        case .collection(let collection):
            // A to-many value path reads its first value, as `PredicateEvaluator.value(of:on:)` does.
            var first = collection.value
            first.fragment = "(SELECT " + collection.value.fragment + collection.source + " LIMIT 1)"
            first.isColumn = false
            return first
        }
    }

    /// The ORDER BY term of a sort key.
    func orderTerm(_ key: BoundSortKey, from row: RowRef) -> SQLFragment {
        let operand = value(key.keyPath, from: row)
        var term = operand.fragment
        if operand.kind == .string && key.caseInsensitive {
            term = "os_fold(" + term + ", \(PredicateOptions.caseInsensitive.rawValue))"
        }
        return term + (key.ascending ? " ASC" : " DESC")
    }
}
