/// One value of a scenario parameter: a YAML scalar, typed as it was written.
public enum ScenarioValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        }
    }

    /// The value as a CSV cell and a `--filter` operand: integers without a fraction, numbers as Swift prints them.
    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .boolean(let value): return String(value)
        case .text(let value): return value
        }
    }

    /// Whether a `--filter` operand names this value. A boolean answers to YAML's spellings of it (`off`/`on`,
    /// `no`/`yes`, `false`/`true`), because a scenario file's bare `off` is read as `false` and a user filters by
    /// the word the file shows.
    public func matches(filterOperand operand: String) -> Bool {
        if case .boolean(let value) = self {
            let word = operand.lowercased()
            return value ? ["true", "on", "yes"].contains(word) : ["false", "off", "no"].contains(word)
        }
        return description == operand
    }

    /// The value as an integer, if it is one.
    public var integerValue: Int? {
        switch self {
        case .integer(let value): return value
        case .number(let value) where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: return nil
        }
    }

    /// The value as a number, if it is one.
    public var numberValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .number(let value): return value
        default: return nil
        }
    }
}
