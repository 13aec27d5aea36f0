import Foundation

extension PredicateEvaluator {
    // MARK: - Property expressions

    /// The value of a property expression for a row: its operands as `value(of:on:)` reads them, its functions
    /// through `ExpressionFunction.apply(_:now:)`, an aggregate's collection arguments spread into their values.
    /// - Parameter now: the date `now()` gives, one for every row of a request.
    func value(of expression: BoundPropertyExpression, on row: Row, now: Date) throws -> StoreValue {
        switch expression {
        case .operand(let operand):
            return try value(of: operand, on: row)
        case .arithmetic(let op, let lhs, let rhs):
            return ValueComparison.arithmetic(
                op, try value(of: lhs, on: row, now: now), try value(of: rhs, on: row, now: now))
        case .function(let function, let arguments):
            var values: [StoreValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments {
                if function.isAggregate, case .operand(let operand) = argument, operand.isCollection {
                    values += try self.values(of: operand, on: row)
                } else {
                    values.append(try value(of: argument, on: row, now: now))
                }
            }
            return function.apply(values, now: now)
        }
    }
}
