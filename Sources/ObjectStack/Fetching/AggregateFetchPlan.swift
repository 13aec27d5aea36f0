import Foundation

/// An aggregate fetch request checked against the model, ready for the store: what Core Data refuses is refused
/// here, before anything is read, with the property and the reason.
///
/// A request is an aggregate fetch when it fetches an aggregate function, groups (`propertiesToGroupBy`) or
/// filters groups (`havingPredicate`); other dictionary fetches are `FetchPlan`s.
struct AggregateFetchPlan {
    /// The request as the store gets it.
    var store: StoreAggregateRequest
    /// Per column: the dictionary key, and the type its values are returned as (nil: object IDs).
    var outputs: [(name: String, type: AttributeType?)]

    /// The functions a fetch computes (Core Data's SQLite store computes these in SQL).
    static let functions: [String: AggregateFunction] = [
        "count:": .count, "sum:": .sum, "min:": .min, "max:": .max, "average:": .avg,
    ]

    /// NSExpression's other functions: known, but not computed by a fetch (Core Data's SQLite store refuses
    /// them too, `median:` and `stddev:` included).
    static let otherExpressionFunctions: Set<String> = [
        "median:", "mode:", "stddev:", "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:",
        "sqrt:", "log:", "ln:", "raise:toPower:", "exp:", "ceiling:", "abs:", "trunc:", "floor:", "random",
        "random:", "now", "uppercase:", "lowercase:", "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:",
        "leftshift:by:", "rightshift:by:", "onesComplement:", "noindex:", "distinct:", "length:", "canonical:",
        "castObject:toType:", "objectFrom:withIndex:",
    ]

    /// The plan of an aggregate request, or nil when the request is not one.
    /// - Throws: `ObjectStackError`: `.invalidArgument` for an unknown or unsupported function, a group-by key
    ///   not fetched, a fetched key neither grouped nor aggregated, a `havingPredicate` without grouping, a
    ///   result type other than dictionaries; `.typeMismatch` for an aggregate of a type it cannot take (a sum of
    ///   strings) or a result type that cannot hold its value; `.unknownKeyPath` for a key path the entity lacks
    ///   or a name the `havingPredicate` or a sort key cannot resolve.
    init?<T>(request: FetchRequest<T>, model: ManagedObjectModel, resultClass: T.Type) throws {
        let fetched = request.propertiesToFetch?.map(\.fetchProperty) ?? []
        let grouped = request.propertiesToGroupBy?.map(\.fetchProperty)
        let hasAggregate = fetched.contains {
            if case .expression(let description) = $0, case .function = description.expression { return true }
            return false
        }
        guard hasAggregate || grouped != nil || request.havingPredicate != nil else { return nil }
        let entity = try Self.entity(of: request, model: model, resultClass: resultClass)
        guard request.resultType == .dictionary else {
            throw ObjectStackError(
                code: .invalidArgument,
                message:
                    "an aggregate fetch of \(entity.name) (aggregates, propertiesToGroupBy or havingPredicate) returns dictionaries: set resultType to .dictionary"
            )
        }
        guard request.fetchLimit >= 0, request.fetchOffset >= 0 else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "fetchLimit and fetchOffset must not be negative (fetch of \(entity.name))")
        }
        guard !fetched.isEmpty else {
            throw ObjectStackError(
                code: .invalidArgument,
                message:
                    "an aggregate fetch of \(entity.name) needs propertiesToFetch: the keys and aggregates it returns")
        }
        if request.havingPredicate != nil, grouped?.isEmpty ?? true {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "a havingPredicate needs propertiesToGroupBy (fetch of \(entity.name)), as in Core Data")
        }
        let binder = PredicateBinder(entity: entity)
        let predicate = try request.predicate.map { try binder.bind($0.node) }

        // The columns, in the order of propertiesToFetch.
        var columns: [StoreAggregateRequest.Column] = []
        var outputs: [(name: String, type: AttributeType?)] = []
        var columnTypes: [AttributeType] = []
        /// The key path each key column reads, by text, for matching group-by entries and the predicate.
        var keyPaths: [String] = []
        for property in fetched {
            let name = property.name
            guard !outputs.contains(where: { $0.name == name }) else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message:
                        "propertiesToFetch names '\(name)' twice (fetch of \(entity.name)): each result key is one property"
                )
            }
            switch property {
            case .keyPath(let text):
                let path = try Self.bindKey(text, binder: binder, entity: entity)
                columns.append(.key(path))
                outputs.append((name, path.finalAttribute?.type))
                columnTypes.append(path.finalAttribute?.type ?? .integer64)
                keyPaths.append(text)
            case .expression(let description):
                switch description.expression {
                case .keyPath(let text):
                    let path = try Self.bindKey(text, binder: binder, entity: entity)
                    let natural = path.finalAttribute?.type
                    if let wanted = description.expressionResultType {
                        try Self.check(wanted, holds: natural, of: description, entity: entity)
                    }
                    columns.append(.key(path))
                    outputs.append((name, description.expressionResultType ?? natural))
                    columnTypes.append(natural ?? .integer64)
                    keyPaths.append(text)
                case .function(let functionName, let arguments):
                    let (function, path) = try Self.aggregate(
                        functionName, arguments, of: description, binder: binder, entity: entity)
                    let argumentType = path.finalAttribute?.type
                    let natural = AggregateAccumulator.resultType(of: function, argumentType: argumentType)!
                    if let wanted = description.expressionResultType {
                        try Self.check(wanted, holds: natural, of: description, entity: entity)
                    }
                    columns.append(.aggregate(function, path))
                    outputs.append((name, description.expressionResultType ?? natural))
                    columnTypes.append(natural)
                    keyPaths.append("")
                }
            }
        }

        // The group-by keys: each one fetched, every fetched key grouped.
        var groupBy: [Int] = []
        for property in grouped ?? [] {
            let text: String
            switch property {
            case .keyPath(let path): text = path
            case .expression(let description):
                guard case .keyPath(let path) = description.expression else {
                    throw ObjectStackError(
                        code: .invalidArgument,
                        message:
                            "propertiesToGroupBy cannot group by the aggregate '\(description.name)' (\(description.expression)) of \(entity.name): group by key paths"
                    )
                }
                text = path
            }
            _ = try Self.bindKey(text, binder: binder, entity: entity)
            let match = columns.indices.first { index in
                guard case .key = columns[index] else { return false }
                return keyPaths[index] == text || outputs[index].name == property.name
            }
            guard let match else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message:
                        "propertiesToGroupBy names '\(property.name)', which is not in propertiesToFetch (fetch of \(entity.name)): fetch each group-by key"
                )
            }
            if !groupBy.contains(match) { groupBy.append(match) }
        }
        for index in columns.indices where !groupBy.contains(index) {
            guard case .key = columns[index] else { continue }
            let how =
                groupBy.isEmpty
                ? "with aggregates, every other property fetched must be an aggregate (or add it to propertiesToGroupBy)"
                : "every property fetched must be in propertiesToGroupBy or be an aggregate"
            throw ObjectStackError(
                code: .invalidArgument,
                message: "'\(outputs[index].name)' is fetched from \(entity.name) but not grouped by: \(how)")
        }

        // The groups' own entity: what the havingPredicate and the sort keys read.
        let columnEntity = EntityDescription(
            name: "\(entity.name) groups",
            attributes: zip(outputs, columnTypes).map { AttributeDescription(name: $0.0.name, type: $0.1) })
        _ = try ManagedObjectModel(entities: [columnEntity])
        let columnNames = ColumnNames(
            entity: entity, outputs: outputs.map(\.name), keyPaths: keyPaths,
            objectKeys: Set(columns.indices.filter { columns[$0].isObjectKey }))
        let having = try request.havingPredicate.map { predicate in
            try PredicateBinder(entity: columnEntity).bind(try columnNames.rewrite(predicate.node))
        }
        let sortKeys = try request.sortDescriptors.map { key in
            let column = try columnNames.column(named: key.key, purpose: "a sort key")
            return BoundSortKey(
                keyPath: BoundKeyPath(variable: nil, steps: [.attribute(columnEntity.attributes[column])]),
                ascending: key.ascending, caseInsensitive: key.caseInsensitive)
        }
        store = StoreAggregateRequest(
            entity: entity, includesSubentities: request.includesSubentities, predicate: predicate, columns: columns,
            groupBy: groupBy, columnEntity: columnEntity, having: having, sortKeys: sortKeys,
            fetchLimit: request.fetchLimit, fetchOffset: request.fetchOffset)
        self.outputs = outputs
    }

    // MARK: - Checking

    private static func entity<T>(of request: FetchRequest<T>, model: ManagedObjectModel, resultClass: T.Type) throws
        -> EntityDescription
    {
        if let name = request.entityName {
            guard let found = model.entitiesByName[name] else {
                throw ObjectStackError(code: .unknownEntity, message: "the model has no entity named '\(name)'")
            }
            return found
        }
        if let type = resultClass as? ManagedObject.Type, let found = model.entity(for: type) { return found }
        throw ObjectStackError(code: .unknownEntity, message: "no entity of the model has class \(resultClass)")
    }

    /// A key path fetched or grouped by: an attribute or to-one, through to-ones, not transient.
    private static func bindKey(_ text: String, binder: PredicateBinder, entity: EntityDescription) throws
        -> BoundKeyPath
    {
        let path = try binder.bindScalarKeyPath(text, purpose: "property to fetch or group by")
        if path.steps.isEmpty {
            throw ObjectStackError.unknownKeyPath(text, entity: entity.name, detail: "fetch attributes or to-ones")
        }
        if case .attribute(let attribute)? = path.steps.last, attribute.isTransient {
            throw ObjectStackError.unknownKeyPath(
                text, entity: entity.name, detail: "a transient attribute is not stored")
        }
        return path
    }

    /// The function and key path of an aggregate expression, checked: a known function Core Data computes in a
    /// fetch, one key-path argument, of a type the function takes.
    private static func aggregate(
        _ name: String, _ arguments: [FetchExpression], of description: ExpressionDescription,
        binder: PredicateBinder, entity: EntityDescription
    ) throws -> (AggregateFunction, BoundKeyPath) {
        let subject = "expression description '\(description.name)' (\(description.expression)) of \(entity.name)"
        guard let function = functions[name] else {
            let known = "a fetch computes count:, sum:, min:, max: and average:"
            if otherExpressionFunctions.contains(name) {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message:
                        "\(subject): \(name) is an NSExpression function that a fetch does not compute (Core Data's SQLite store refuses it too); \(known)"
                )
            }
            throw ObjectStackError(code: .invalidArgument, message: "\(subject): unknown function '\(name)'; \(known)")
        }
        guard arguments.count == 1, case .keyPath(let text) = arguments[0] else {
            throw ObjectStackError(
                code: .invalidArgument,
                message: "\(subject): \(name) takes one key path of the fetched entity, such as \(name)(pages)")
        }
        let path = try binder.bindScalarKeyPath(text, purpose: "argument of \(name)")
        let attribute = path.finalAttribute
        if let attribute, attribute.isTransient {
            throw ObjectStackError.unknownKeyPath(
                text, entity: entity.name, detail: "a transient attribute is not stored")
        }
        switch function {
        case .count:
            guard !path.steps.isEmpty else {
                throw ObjectStackError(code: .invalidArgument, message: "\(subject): count: takes a key path, not SELF")
            }
        case .sum, .avg:
            guard let attribute, attribute.type.isNumeric else {
                throw ObjectStackError.typeMismatch(
                    "\(subject): \(name) needs a numeric attribute, but '\(text)' is \(Self.describe(attribute))")
            }
        case .min, .max:
            guard let attribute, QueryPlanner.isOrderable(attribute.type) || attribute.type == .decimal else {
                throw ObjectStackError.typeMismatch(
                    "\(subject): \(name) needs a number, string, date, boolean or UUID attribute, but '\(text)' is \(Self.describe(attribute))"
                )
            }
        }
        return (function, path)
    }

    private static func describe(_ attribute: AttributeDescription?) -> String {
        guard let attribute else { return "a relationship" }
        let type = attribute.type.rawValue
        return "\("aeiou".contains(type.prefix(1)) ? "an" : "a") \(type) attribute"
    }

    /// Whether a result type can hold a value of the natural type: numbers as any number, the rest as
    /// themselves.
    private static func check(
        _ wanted: AttributeType, holds natural: AttributeType?, of description: ExpressionDescription,
        entity: EntityDescription
    ) throws {
        guard let natural else {
            throw ObjectStackError.typeMismatch(
                "expression description '\(description.name)' of \(entity.name): \(description.expression) is an object; it has no expressionResultType"
            )
        }
        if wanted == natural || wanted.isNumeric && natural.isNumeric { return }
        throw ObjectStackError.typeMismatch(
            "expression description '\(description.name)' of \(entity.name): expressionResultType \(wanted.rawValue) cannot hold the \(natural.rawValue) value of \(description.expression)"
        )
    }

    // MARK: - Results

    /// The dictionaries of result rows: each column's value under its name, converted to its type; nil values
    /// are left out, as Core Data leaves them out.
    func dictionaries(_ rows: [[StoreValue]]) -> [[String: Any]] {
        rows.map { row in
            var dictionary: [String: Any] = [:]
            for (index, output) in outputs.enumerated() {
                dictionary[output.name] = Self.object(row[index], as: output.type)
            }
            return dictionary
        }
    }

    static func object(_ value: StoreValue, as type: AttributeType?) -> Any? {
        guard let type else {
            if case .objectID(let id) = value { return id }
            return nil
        }
        return type.object(from: converted(value, to: type) ?? value)
    }

    /// A value as a column of another type reads it in SQLite: a fraction as an integer is truncated toward
    /// zero, a number as a boolean is whether it is not zero.
    static func converted(_ value: StoreValue, to type: AttributeType) -> StoreValue? {
        if let exact = type.coerce(value) { return exact }
        switch (type, value) {
        case (.integer16, _), (.integer32, _), (.integer64, _):
            guard let number = value.numericValue, number.isFinite else { return nil }
            return type.coerce(.integer(Int64(exactly: number.rounded(.towardZero)) ?? 0))
        case (.boolean, _):
            return value.numericValue.map { .boolean($0 != 0) }
        case (.double, _), (.float, _):
            return value.numericValue.map(StoreValue.double)
        case (.decimal, .boolean(let flag)):
            return .decimal(flag ? 1 : 0)
        default:
            return nil
        }
    }
}

extension StoreAggregateRequest.Column {
    /// Whether the column is a group-by key whose values are objects (a to-one).
    var isObjectKey: Bool {
        if case .key(let path) = self { return path.finalAttribute == nil }
        return false
    }
}

/// How a `havingPredicate` and sort keys name an aggregate fetch's columns: an expression description as a
/// variable (`$books`) or by name, a group-by key by its key path.
private struct ColumnNames {
    let entity: EntityDescription
    let outputs: [String]
    let keyPaths: [String]
    let objectKeys: Set<Int>

    /// The column a name or key path stands for.
    func column(named text: String, purpose: String) throws -> Int {
        guard let index = outputs.firstIndex(of: text) ?? keyPaths.firstIndex(of: text) else {
            throw ObjectStackError.unknownKeyPath(
                text, entity: entity.name,
                detail:
                    "\(purpose) of an aggregate fetch names a property fetched: a group-by key path or an expression description (\(outputs.joined(separator: ", ")))"
            )
        }
        return index
    }

    /// The predicate over the column entity: names and variables become the columns' attributes.
    func rewrite(_ node: PredicateNode) throws -> PredicateNode {
        switch node {
        case .constant: return node
        case .and(let parts): return .and(try parts.map(rewrite))
        case .or(let parts): return .or(try parts.map(rewrite))
        case .not(let inner): return .not(try rewrite(inner))
        case .comparison(var comparison):
            guard comparison.quantifier == .direct else {
                throw ObjectStackError(
                    code: .invalidArgument,
                    message:
                        "havingPredicate of \(entity.name) tests one value per group: \(comparison.quantifier.rawValue) has no collection to test"
                )
            }
            comparison.lhs = try rewrite(comparison.lhs)
            comparison.rhs = try rewrite(comparison.rhs)
            return .comparison(comparison)
        }
    }

    private func rewrite(_ expression: PredicateExpression) throws -> PredicateExpression {
        switch expression {
        case .constant, .list:
            return expression
        case .keyPath(let components):
            return try attribute(components.joined(separator: "."), as: components.joined(separator: "."))
        case .variable(let name, let path):
            guard path.isEmpty else {
                throw ObjectStackError.unknownKeyPath(
                    "$" + ([name] + path).joined(separator: "."), entity: entity.name,
                    detail: "a havingPredicate variable names an expression description's value, which has no key path")
            }
            guard outputs.contains(name) else {
                throw ObjectStackError.unknownKeyPath(
                    "$\(name)", entity: entity.name,
                    detail:
                        "havingPredicate variables name expression descriptions of propertiesToFetch (\(outputs.map { "$" + $0 }.joined(separator: ", ")))"
                )
            }
            return try attribute(name, as: "$\(name)")
        case .subquery:
            throw ObjectStackError(
                code: .invalidArgument,
                message: "havingPredicate of \(entity.name) tests groups' keys and aggregates, not SUBQUERY")
        case .arithmetic(let op, let lhs, let rhs):
            return .arithmetic(op, try rewrite(lhs), try rewrite(rhs))
        case .negate(let operand):
            return .negate(try rewrite(operand))
        case .function(let name, let arguments):
            return .function(name, try arguments.map(rewrite))
        case .call:
            // A predicate never holds FUNCTION(…) (the parser reads it in expressions only); the binder names it.
            return expression
        }
    }

    private func attribute(_ text: String, as written: String) throws -> PredicateExpression {
        let index = try column(named: text, purpose: "'\(written)' in the havingPredicate")
        if objectKeys.contains(index) {
            throw ObjectStackError(
                code: .invalidArgument,
                message:
                    "havingPredicate of \(entity.name) cannot test the to-one group key '\(text)': group by one of its attributes instead (\(text).name)"
            )
        }
        return .keyPath([outputs[index]])
    }
}
