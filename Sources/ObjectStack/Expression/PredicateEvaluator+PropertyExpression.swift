import Foundation

/// Answers the `FUNCTION(…)` calls of a mapping model's value expression whose receiver is not a value:
/// `$manager`'s functions and `$entityPolicy`'s, which only a running migration can compute.
protocol ExpressionCallHandler {
    /// The result of calling `method` with its arguments' values (collections kept whole).
    func call(_ method: ExpressionMethod, arguments: [OperandValue]) throws -> OperandValue
}

extension PredicateEvaluator {
    // MARK: - Property expressions

    /// The value of a property expression for a row: its operands as `value(of:on:)` reads them, its functions
    /// through `ExpressionFunction.apply(_:now:)`, an aggregate's collection arguments spread into their values.
    /// - Parameter now: the date `now()` gives, one for every row of a request.
    func value(of expression: BoundPropertyExpression, on row: Row, now: Date) throws -> StoreValue {
        switch try result(of: expression, on: row, scope: [], now: now, calls: nil) {
        case .single(let value): return value
        case .collection(let values): return .integer(Int64(values.count))
        }
    }

    /// What a property expression evaluates to, a collection kept whole: the form a mapping model's value
    /// expression needs, whose `$source` key paths read `scope` and whose `$manager` and `$entityPolicy` calls go
    /// to `calls`.
    /// - Throws: the resolver's errors and `calls`'s; `ObjectStackError(.invalidArgument)` for a call on a
    ///   mapping model's object with no `calls` to answer it.
    func result(
        of expression: BoundPropertyExpression, on row: Row, scope: Scope, now: Date,
        calls: (any ExpressionCallHandler)?
    ) throws -> OperandValue {
        func single(_ expression: BoundPropertyExpression) throws -> StoreValue {
            switch try result(of: expression, on: row, scope: scope, now: now, calls: calls) {
            case .single(let value): return value
            case .collection(let values): return .integer(Int64(values.count))
            }
        }
        switch expression {
        case .operand(let operand):
            return try self.operand(of: operand, on: row, scope: scope)
        case .arithmetic(let op, let lhs, let rhs):
            return .single(ValueComparison.arithmetic(op, try single(lhs), try single(rhs)))
        case .function(let function, let arguments):
            if let method = function.method {
                let values = try arguments.map {
                    try result(of: $0, on: row, scope: scope, now: now, calls: calls)
                }
                guard method.receiver == .value else {
                    guard let calls else {
                        throw ObjectStackError(
                            code: .invalidArgument,
                            message: "\(method) is computed by a running migration, and none is running")
                    }
                    return try calls.call(method, arguments: values)
                }
                return .single(method.apply(to: values.map(\.firstValue)))
            }
            var values: [StoreValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments {
                if function.isAggregate, case .operand(let operand) = argument, operand.isCollection {
                    values += try self.values(of: operand, on: row, scope: scope)
                } else {
                    values.append(try single(argument))
                }
            }
            return .single(function.apply(values, now: now))
        }
    }
}

extension OperandValue {
    /// The value, or a collection's first value (nil for an empty one).
    var firstValue: StoreValue {
        switch self {
        case .single(let value): return value
        case .collection(let values): return values.first ?? .null
        }
    }

    /// The values: a collection's, or the single value alone (none for nil).
    var allValues: [StoreValue] {
        switch self {
        case .single(.null): return []
        case .single(let value): return [value]
        case .collection(let values): return values
        }
    }
}
