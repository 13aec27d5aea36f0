import Foundation

/// Checks a predicate against an entity and resolves its key paths to the model's properties.
///
/// Every error names the culprit: the key path and entity for an unknown key, both operands for unlike
/// types, the quantifier for a misused collection. As in NSPredicate, `==`, `!=` and `IN` between a string
/// and a number are not errors: the values are unequal.
struct PredicateBinder {
    let entity: EntityDescription
    private var variables: [String: EntityDescription] = [:]
    /// Whether key paths may hold the union operators (`@distinctUnionOfSets`…): in a mapping model's value
    /// expressions, which Core Data evaluates with key-value coding, not in predicates or batch updates.
    private var allowsUnionOperators = false
    /// Why a key path may not start from the evaluated object, when it may not: a mapping model's value expression
    /// has none, and reads through `$source`.
    private var selfUnavailable: String?

    init(entity: EntityDescription) {
        self.entity = entity
    }

    /// A binder whose expressions may read the objects of `variables` (`$source` in a mapping model's value
    /// expression) and use the union collection operators; a key path from the evaluated object itself is refused
    /// with `selfUnavailable` as the reason, when given.
    init(entity: EntityDescription, variables: [String: EntityDescription], selfUnavailable: String?) {
        self.entity = entity
        self.variables = variables
        self.allowsUnionOperators = true
        self.selfUnavailable = selfUnavailable
    }

    /// Binds a whole predicate.
    func bind(_ node: PredicateNode) throws -> BoundPredicate {
        switch node {
        case .constant(let value): return .constant(value)
        case .and(let nodes): return .and(try nodes.map(bind))
        case .or(let nodes): return .or(try nodes.map(bind))
        case .not(let inner): return .not(try bind(inner))
        case .comparison(let comparison): return .comparison(try bind(comparison))
        }
    }

    /// Binds a key path used as a sort key or a property to fetch: to-one steps only.
    func bindScalarKeyPath(_ text: String, purpose: String) throws -> BoundKeyPath {
        // A sort key is most often one attribute of the entity: that binds to the one step, as the full binding
        // below would, without splitting the text into components and walking them (5% of fetching a list's first
        // screen of 50 objects).
        if selfUnavailable == nil, !text.utf8.contains(UInt8(ascii: ".")), let attribute = entity.attributesByName[text]
        {
            return BoundKeyPath(variable: nil, steps: [.attribute(attribute)])
        }
        let components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard case .keyPath(let path) = try bind(.keyPath(components)), !path.isCollection else {
            throw ObjectStackError.unknownKeyPath(
                text, entity: entity.name, detail: "a \(purpose) cannot cross a to-many relationship")
        }
        return path
    }

    /// Binds a lone expression (a derived attribute's derivation).
    func bindExpression(_ expression: PredicateExpression) throws -> BoundExpression {
        try bind(expression)
    }

    // MARK: - Comparisons

    private func bind(_ comparison: PredicateComparison) throws -> BoundComparison {
        let lhs = try bind(comparison.lhs)
        let rhs = try bind(comparison.rhs)
        let op = comparison.op
        // The comparison's text is made only for an error: formatting it on every bind was a fifth of binding a
        // count's predicate.
        let text = { PredicateNode.comparison(comparison).predicateFormat }
        let quantifier: BoundComparison.Quantifier
        switch comparison.quantifier {
        case .direct: quantifier = .direct
        case .any: quantifier = .any
        case .all: quantifier = .all
        case .none: quantifier = .none
        }
        if quantifier != .direct, !lhs.isCollection {
            throw mismatch(
                "\(comparison.quantifier.rawValue) needs a to-many key path or a collection on its left", text())
        }
        let lhsIsMembershipCollection = quantifier == .direct && lhs.isCollection
        if lhsIsMembershipCollection, op != .contains {
            throw mismatch("the to-many key path on the left needs ANY, ALL or NONE (or @count)", text())
        }
        switch op {
        case .in:
            guard rhs.isCollection || Self.kind(of: rhs) == .string else {
                throw mismatch("IN needs a collection or a string on its right", text())
            }
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2 else {
                throw mismatch("BETWEEN needs a list of two values on its right, such as {1, 5}", text())
            }
        default:
            if rhs.isCollection {
                throw mismatch("a collection on the right is only allowed with IN", text())
            }
        }
        try checkKinds(lhs: lhs, op: op, rhs: rhs, membership: lhsIsMembershipCollection, text: text())
        var regex: RegexBox?
        if op == .matches, case .constant(.string(let pattern)) = rhs {
            do {
                regex = try RegexBox(pattern: pattern, options: comparison.options)
            } catch {
                throw mismatch("MATCHES pattern \"\(pattern)\" is not a valid regular expression", text())
            }
        }
        return BoundComparison(
            quantifier: quantifier, lhs: lhs, op: op, rhs: rhs, options: comparison.options, regex: regex)
    }

    /// The kind of value an operand yields, for type checking.
    private enum Kind: Equatable {
        case number, string, date, data, uuid, uri, object, null, unknown
    }

    private static func kind(of expression: BoundExpression) -> Kind {
        switch expression {
        case .constant(let value): return kind(of: value)
        case .list(let values): return values.lazy.map(kind(of:)).first { $0 != .null } ?? .unknown
        case .aggregate(.count, _), .arithmetic: return .number
        case .aggregate(_, let inner): return kind(of: inner)
        case .subquery: return .object
        case .keyPath(let path):
            switch path.steps.last {
            case .attribute(let attribute)?: return kind(of: attribute.type)
            default: return .object
            }
        }
    }

    private static func kind(of value: StoreValue) -> Kind {
        switch value {
        case .null: return .null
        case .integer, .double, .decimal, .boolean: return .number
        case .string: return .string
        case .date: return .date
        case .data: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        case .objectID: return .object
        }
    }

    private static func kind(of type: AttributeType) -> Kind {
        switch type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: return .number
        case .string: return .string
        case .date: return .date
        case .binaryData, .transformable: return .data
        case .uuid: return .uuid
        case .uri: return .uri
        }
    }

    private func checkKinds(
        lhs: BoundExpression, op: PredicateOperator, rhs: BoundExpression, membership: Bool,
        text: @autoclosure () -> String
    ) throws {
        let left = Self.kind(of: lhs)
        let right = Self.kind(of: rhs)
        if op.isStringOperator || (op == .contains && !membership) || (op == .in && !rhs.isCollection) {
            for (side, kind) in [("left", left), ("right", right)]
            where kind != .string && kind != .null && kind != .unknown {
                throw mismatch("\(op.rawValue) compares strings, but the \(side) side is not a string", text())
            }
            return
        }
        if left == .null || right == .null || left == .unknown || right == .unknown || left == right { return }
        // NSPredicate compares with isEqual:, so a string and a number are simply unequal.
        let equality = op == .equal || op == .notEqual || op == .in || membership
        if equality, Set([left, right]) == [.string, .number] { return }
        throw mismatch("cannot compare a \(Self.describe(left)) with a \(Self.describe(right))", text())
    }

    private static func describe(_ kind: Kind) -> String {
        switch kind {
        case .number: return "number"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data value"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .object: return "object"
        case .null: return "nil"
        case .unknown: return "value"
        }
    }

    private func mismatch(_ reason: String, _ text: @autoclosure () -> String) -> ObjectStackError {
        ObjectStackError.typeMismatch("\(reason) in '\(text())' (entity \(entity.name))")
    }

    // MARK: - Expressions

    private func bind(_ expression: PredicateExpression) throws -> BoundExpression {
        switch expression {
        case .constant(let value):
            return .constant(value)
        case .list(let items):
            return .list(
                try items.map { item in
                    guard case .constant(let value) = item else {
                        throw ObjectStackError.typeMismatch(
                            "a list may hold only constants, not '\(item.predicateFormat)' (entity \(entity.name))")
                    }
                    return value
                })
        case .keyPath(let components):
            if let selfUnavailable {
                throw ObjectStackError.unknownKeyPath(
                    expression.predicateFormat, entity: entity.name, detail: selfUnavailable)
            }
            return try bindPath(variable: nil, start: entity, components: components)
        case .variable(let name, let components):
            guard let start = variables[name] else {
                throw ObjectStackError.unknownKeyPath(
                    "$\(name)", entity: entity.name, detail: "the variable is not bound by a SUBQUERY")
            }
            return try bindPath(variable: name, start: start, components: components)
        case .subquery(let collection, let variable, let predicate, let path):
            guard case .keyPath(let collectionPath) = try bind(collection), collectionPath.isCollection,
                case .toMany(let last)? = collectionPath.steps.last
            else {
                throw ObjectStackError.typeMismatch(
                    "SUBQUERY needs a to-many relationship as its collection, not '\(collection.predicateFormat)' (entity \(entity.name))"
                )
            }
            // As in NSPredicate, a key path without a variable inside a SUBQUERY is the evaluated (outermost)
            // object's, at any depth: the member is reached through the variable only.
            var inner = self
            inner.variables[variable] = last.destinationEntity
            let subquery = BoundExpression.subquery(
                BoundSubquery(
                    collection: collectionPath, variable: variable, entity: last.destinationEntity,
                    predicate: try inner.bind(predicate)))
            guard let first = path.first else { return subquery }
            let isCount =
                first.lowercased() == AggregateFunction.count.rawValue
                || PredicateSubscript(component: first) == .size
            guard isCount, path.count == 1 else {
                throw ObjectStackError.unknownKeyPath(
                    path.joined(separator: "."), entity: entity.name,
                    detail: "only @count or [SIZE] may follow a SUBQUERY")
            }
            return .aggregate(.count, subquery)
        case .arithmetic(let op, let left, let right):
            let operands = (try bind(left), try bind(right))
            for (source, operand) in [(left, operands.0), (right, operands.1)] {
                let kind = Self.kind(of: operand)
                guard !operand.isCollection, kind == .number || kind == .null || kind == .unknown else {
                    let what = operand.isCollection ? "collection" : Self.describe(kind)
                    let article = "aeio".contains(what.prefix(1)) ? "an" : "a"
                    throw ObjectStackError.typeMismatch(
                        "arithmetic needs numbers, but '\(source.predicateFormat)' is "
                            + "\(article) \(what) in '\(expression.predicateFormat)' (entity \(entity.name))")
                }
            }
            return .arithmetic(op, operands.0, operands.1)
        case .negate(let operand):
            return try bind(.arithmetic(.subtract, .constant(.integer(0)), operand))
        case .function(let name, _):
            throw ObjectStackError.typeMismatch(
                "the function '\(name)' in '\(expression.predicateFormat)' is for expressions (PropertyExpression: "
                    + "batch updates, derived attributes), not predicates (entity \(entity.name))")
        case .call(_, let selector, _):
            throw ObjectStackError.typeMismatch(
                "FUNCTION(…, '\(selector)') in '\(expression.predicateFormat)' is for a mapping model's value "
                    + "expressions, not predicates, batch updates or derived attributes (entity \(entity.name))")
        }
    }

    private func bindPath(variable: String?, start: EntityDescription, components: [String]) throws -> BoundExpression {
        var steps: [BoundKeyPath.Step] = []
        var current: EntityDescription? = start
        var distinct = false
        let fullText = ((variable.map { ["$" + $0] } ?? []) + components).joined(separator: ".")
        // Components a composite attribute's element path took (`location.x` is one attribute).
        var consumed = 0
        for (position, component) in components.enumerated() {
            if consumed > 0 {
                consumed -= 1
                continue
            }
            if let union = Self.unionOperators[component] {
                guard allowsUnionOperators else {
                    throw ObjectStackError.unknownKeyPath(
                        fullText, entity: start.name,
                        detail: "\(component) is a collection operator of a mapping model's value expressions; a "
                            + "predicate reaches the members of a to-many key path with ANY, ALL or SUBQUERY")
                }
                guard BoundKeyPath(variable: variable, steps: steps).isCollection,
                    position < components.count - 1
                else {
                    throw ObjectStackError.unknownKeyPath(
                        fullText, entity: start.name,
                        detail: "\(component) needs a to-many relationship before it and a key after it")
                }
                // A key path through to-many relationships already yields every member's values, flattened:
                // the union operators only decide whether repeats stay.
                distinct = distinct || union
                continue
            }
            if let subscriptValue = PredicateSubscript(component: component) {
                guard case .toMany(let relationship)? = steps.last else {
                    throw ObjectStackError.unknownKeyPath(
                        fullText, entity: start.name,
                        detail: "the subscript \(component) needs a to-many relationship before it")
                }
                let member: BoundKeyPath.Position
                switch subscriptValue {
                case .size:
                    guard position == components.count - 1 else {
                        throw ObjectStackError.unknownKeyPath(
                            fullText, entity: start.name, detail: "nothing may follow [SIZE]")
                    }
                    return .aggregate(
                        .count, .keyPath(BoundKeyPath(variable: variable, steps: steps, distinctValues: distinct)))
                case .first: member = .first
                case .last: member = .last
                case .index(let index): member = .index(index)
                }
                steps[steps.count - 1] = .element(relationship, member)
                continue
            }
            if component.hasPrefix("@") {
                guard let function = AggregateFunction(rawValue: component.lowercased()) else {
                    throw ObjectStackError.unknownKeyPath(
                        fullText, entity: start.name, detail: "unknown collection operator \(component)")
                }
                let operand = BoundKeyPath(variable: variable, steps: steps, distinctValues: distinct)
                let rest = Array(components[(position + 1)...])
                if function == .count {
                    guard rest.isEmpty else {
                        throw ObjectStackError.unknownKeyPath(
                            fullText, entity: start.name, detail: "nothing may follow @count")
                    }
                    guard operand.isCollection else {
                        throw ObjectStackError.unknownKeyPath(
                            fullText, entity: start.name, detail: "@count needs a to-many relationship")
                    }
                    return .aggregate(.count, .keyPath(operand))
                }
                guard operand.isCollection, let destination = current,
                    case .keyPath(let tail) = try bindPath(variable: nil, start: destination, components: rest),
                    tail.finalAttribute.map({ $0.type.isNumeric || function == .min || function == .max }) == true
                else {
                    throw ObjectStackError.unknownKeyPath(
                        fullText, entity: start.name,
                        detail: "\(component) needs a to-many relationship followed by an attribute")
                }
                return .aggregate(
                    function,
                    .keyPath(BoundKeyPath(variable: variable, steps: steps + tail.steps, distinctValues: distinct)))
            }
            guard let entity = current else {
                throw ObjectStackError.unknownKeyPath(
                    fullText, entity: start.name,
                    detail:
                        "'\(components[position - 1])' is an attribute, so the key path cannot go on to '\(component)'")
            }
            if let attribute = entity.attributesByName[component] {
                steps.append(.attribute(attribute))
                current = nil
            } else if let relationship = entity.relationshipsByName[component] {
                steps.append(relationship.isToMany ? .toMany(relationship) : .toOne(relationship))
                current = relationship.destinationEntity
            } else if let composite = entity.compositeAttributesByName[component] {
                // An element of a composite attribute is stored as the attribute its key path names.
                var path = component
                var element: AttributeDescription?
                for next in components[(position + 1)...] {
                    path += "." + next
                    consumed += 1
                    if let attribute = entity.attributesByName[path] {
                        element = attribute
                        break
                    }
                }
                guard let element else {
                    throw ObjectStackError.unknownKeyPath(
                        fullText, entity: start.name,
                        detail: "composite \(entity.name).\(component) has no element at this path (elements: "
                            + composite.elementPaths.joined(separator: ", ") + ")")
                }
                steps.append(.attribute(element))
                current = nil
            } else {
                throw ObjectStackError.unknownKeyPath(
                    fullText, entity: start.name,
                    detail: "\(entity.name) has no property '\(component)'")
            }
        }
        return .keyPath(BoundKeyPath(variable: variable, steps: steps, distinctValues: distinct))
    }

    /// Key-value coding's union operators, each with whether it drops repeated values.
    private static let unionOperators: [String: Bool] = [
        "@distinctUnionOfSets": true, "@distinctUnionOfObjects": true, "@distinctUnionOfArrays": true,
        "@unionOfSets": true, "@unionOfObjects": false, "@unionOfArrays": false,
    ]
}
