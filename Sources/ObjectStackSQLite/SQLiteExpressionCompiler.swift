import Foundation
import ObjectStack

/// Compiles a bound property expression into an SQL value of the row an `UPDATE` is writing, with the semantics the
/// other stores evaluate it with: the predicate language's operands through `SQLitePredicateCompiler` (its
/// arithmetic is `ValueComparison.arithmetic`'s), every function through `os_expr` (which is
/// `ExpressionFunction.apply`), `now()` as the request's date bound once.
/// - Note: Not thread-safe; one compiler per statement.
struct SQLiteExpressionCompiler {
    typealias Operand = SQLitePredicateCompiler.Operand

    let predicates: SQLitePredicateCompiler
    /// The row being written: its table, named as the `UPDATE` names it.
    let row: SQLitePredicateCompiler.RowRef
    /// The date `now()` gives.
    let now: Date

    /// The expression as one SQL value; nil for what a single value cannot hold (a collection).
    func compile(_ expression: BoundPropertyExpression) -> Operand? {
        switch expression {
        case .operand(let operand):
            guard case .single(let value) = predicates.compile(operand, .init(row: row)) else { return nil }
            return value
        case .arithmetic(let op, let lhs, let rhs):
            // A side holds a function: computed by the function that computes the operator.
            return call(Self.function(for: op), [lhs, rhs])
        case .function(let function, let arguments):
            if function.resultKind == .date {
                return predicates.constant(function.apply([], now: now))
            }
            return call(function, arguments)
        }
    }

    /// `os_expr('name', kind, value, …)`, of the kind the function yields.
    private func call(_ function: ExpressionFunction, _ arguments: [BoundPropertyExpression]) -> Operand? {
        var operands: [Operand] = []
        for argument in arguments {
            guard let operand = compile(argument) else { return nil }
            operands.append(operand)
        }
        var fragment = SQLFragment("os_expr(?", [.text(function.name)])
        for operand in operands {
            fragment = fragment + ", \(SQLiteFunctions.code(of: operand.kind)), " + operand.fragment
        }
        fragment = fragment + ")"
        let kind: SQLitePredicateCompiler.Kind
        switch function.resultKind {
        case .number: kind = .number
        case .string: kind = .string
        case .date: kind = .date
        case .argument: kind = operands.first.map(\.kind) ?? .null
        }
        return Operand(fragment: fragment, kind: kind)
    }

    /// The function that computes an arithmetic operator (`+` is `add:to:`).
    private static func function(for op: ArithmeticOperator) -> ExpressionFunction {
        let name: String
        switch op {
        case .add: name = "add:to:"
        case .subtract: name = "from:subtract:"
        case .multiply: name = "multiply:by:"
        case .divide: name = "divide:by:"
        case .power: name = "raise:toPower:"
        }
        return ExpressionFunction(name: name)!
    }
}
