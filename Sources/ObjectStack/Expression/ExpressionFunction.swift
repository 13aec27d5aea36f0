import Foundation

/// One of the functions a ``PropertyExpression`` calls, by NSExpression's name for it: the functions
/// `NSExpression(forFunction:arguments:)` documents, and `canonical:` of Core Data's derived attributes.
///
/// For example:
/// ```swift
/// let lower = try #require(ExpressionFunction(name: "lowercase:"))
/// lower.apply([.string("Élan")], now: Date())   // .string("élan")
/// ```
/// Every store computes a function through `apply(_:now:)`: the in-memory and LMDB stores directly, SQLite through a
/// SQL function that calls it, so a value is the same on every store. The functions:
/// - `now()`: the date of the request (one instant for all its rows);
/// - `lowercase:`, `uppercase:`, `canonical:` (lower case without diacritics) of a string;
/// - `add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:`, `raise:toPower:`: the arithmetic operators'
///   rules (`ValueComparison.arithmetic`); `modulus:by:` (an integer remainder, or floating point);
/// - `abs:`, `floor:`, `ceiling:`, `trunc:` (an integer stays an integer), `sqrt:`, `log:` (base 10), `ln:`,
///   `exp:` (floating point);
/// - `bitwiseAnd:with:`, `bitwiseOr:with:`, `bitwiseXor:with:`, `leftshift:by:`, `rightshift:by:`,
///   `onesComplement:` on 64-bit integers (a whole double counts as one);
/// - `random` (a random integer), `random:` (an integer from 0 up to, not including, the argument);
/// - `sum:`, `count:`, `min:`, `max:`, `average:`, `median:`, `stddev:` of their arguments' values (a list
///   `{a, b}` or a to-many key path gives several);
/// - `noindex:`: its argument (Core Data's marker for an index that is not used).
///
/// A function of nil, or of a value of another kind than it takes, is nil; so is a result that is not a number
/// (`sqrt:(-1)`). `mode:` yields an array, not a value a property can hold, and is refused when bound.
public struct ExpressionFunction: Sendable, Hashable, CustomStringConvertible {
    /// The function's names, as NSExpression spells them.
    enum Name: String, CaseIterable, Sendable {
        case now, random
        case randomBelow = "random:"
        case lowercase = "lowercase:", uppercase = "uppercase:", canonical = "canonical:"
        case add = "add:to:", subtract = "from:subtract:", multiply = "multiply:by:", divide = "divide:by:"
        case modulus = "modulus:by:", power = "raise:toPower:"
        case sqrt = "sqrt:", log = "log:", ln = "ln:", exp = "exp:"
        case floor = "floor:", ceiling = "ceiling:", abs = "abs:", trunc = "trunc:"
        case bitwiseAnd = "bitwiseAnd:with:", bitwiseOr = "bitwiseOr:with:", bitwiseXor = "bitwiseXor:with:"
        case leftShift = "leftshift:by:", rightShift = "rightshift:by:", onesComplement = "onesComplement:"
        case noindex = "noindex:"
        case sum = "sum:", count = "count:", min = "min:", max = "max:", average = "average:"
        case median = "median:", mode = "mode:", stddev = "stddev:"
        /// `FUNCTION(receiver, 'selector', …)`: a method of a mapping model's value expression (see `method`).
        case method = "FUNCTION"
    }

    /// What kind of value a function yields, for a store that compiles it.
    public enum ResultKind: Sendable, Hashable {
        /// A number (an integer or floating point).
        case number
        /// A string.
        case string
        /// A date.
        case date
        /// Its argument's kind (`noindex:`, `min:`, `max:`).
        case argument
    }

    let kind: Name
    /// For `FUNCTION(…)`: the method called and what it is called on.
    let method: ExpressionMethod?

    init(_ kind: Name) {
        self.kind = kind
        self.method = nil
    }

    /// A `FUNCTION(…)` call of a mapping model's value expression.
    init(method: ExpressionMethod) {
        self.kind = .method
        self.method = method
    }

    /// The function NSExpression names `name` (`"lowercase:"`, `"now"`), nil for a name it does not know.
    public init?(name: String) {
        guard let kind = Name(rawValue: name), kind != .method else { return nil }
        self.kind = kind
        self.method = nil
    }

    /// The function's name as NSExpression spells it: `lowercase:`, `add:to:`, `now`; a method call's selector.
    public var name: String { method?.selector ?? kind.rawValue }

    public var description: String { method?.description ?? name }

    /// The names of every function, for error messages.
    static var allNames: String {
        Name.allCases.filter { $0 != .method }.map(\.rawValue).joined(separator: ", ")
    }

    /// How many arguments the function takes.
    var arity: ClosedRange<Int> {
        switch kind {
        case .now, .random: return 0...0
        case .add, .subtract, .multiply, .divide, .modulus, .power, .bitwiseAnd, .bitwiseOr, .bitwiseXor,
            .leftShift, .rightShift:
            return 2...2
        case .sum, .count, .min, .max, .average, .median, .mode, .stddev: return 1...Int.max
        default: return 1...1
        }
    }

    /// Whether the function reduces several values to one (its arguments, a list's items or a collection's values).
    var isAggregate: Bool {
        switch kind {
        case .sum, .count, .min, .max, .average, .median, .mode, .stddev: return true
        default: return false
        }
    }

    /// What the function yields.
    public var resultKind: ResultKind {
        if let method {
            switch method.resultType {
            case .string: return .string
            case .date: return .date
            case .number: return .number
            default: return .argument
            }
        }
        switch kind {
        case .lowercase, .uppercase, .canonical: return .string
        case .now: return .date
        case .noindex, .min, .max: return .argument
        default: return .number
        }
    }

    /// The arithmetic operator the function computes (`add:to:` is `+`), which a store may compile as one.
    public var arithmeticOperator: ArithmeticOperator? {
        switch kind {
        case .add: return .add
        case .subtract: return .subtract
        case .multiply: return .multiply
        case .divide: return .divide
        case .power: return .power
        default: return nil
        }
    }
}
