/// What one scenario parameter may hold: its kind, its default, and how `--quick` shrinks it.
public struct ParameterSpec: Sendable {
    /// The values a parameter accepts.
    public enum Kind: Sendable {
        /// An integer at least `minimum`.
        case integer(minimum: Int)
        /// A number greater than `above`.
        case number(above: Double)
        /// One of the listed words.
        case choice([String])
        /// Any text (a file path).
        case text
        /// `true` or `false`.
        case boolean
    }

    /// The parameter's name, as written in scenario files and CSV headers.
    public let name: String
    /// What it accepts.
    public let kind: Kind
    /// The value a scenario gets when it does not set the parameter; nil for an optional parameter.
    public let defaultValue: ScenarioValue?
    /// Under `--quick`, numbers above this are lowered to it.
    public let quickCap: ScenarioValue?
    /// One line on what the parameter means.
    public let help: String

    /// A parameter called `name` of `kind`; `quick` caps it under `--quick`.
    public init(
        _ name: String, _ kind: Kind, default defaultValue: ScenarioValue?, quick quickCap: ScenarioValue? = nil,
        help: String
    ) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.quickCap = quickCap
        self.help = help
    }

    /// What the parameter expects, for error messages.
    public var expected: String {
        switch kind {
        case .integer(let minimum): return "an integer ≥ \(minimum)"
        case .number(let above): return "a number > \(ScenarioValue.number(above))"
        case .choice(let words): return "one of \(words.joined(separator: ", "))"
        case .text: return "text"
        case .boolean: return "true or false"
        }
    }

    /// The value in the form the workload reads (integers for integer parameters), or nil if it does not fit.
    public func accept(_ value: ScenarioValue) -> ScenarioValue? {
        switch (kind, value) {
        case (.integer(let minimum), _):
            guard let integer = value.integerValue, integer >= minimum else { return nil }
            return .integer(integer)
        case (.number(let above), _):
            guard let number = value.numberValue, number > above, number.isFinite else { return nil }
            return .number(number)
        case (.choice(let words), .text(let word)):
            return words.contains(word) ? value : nil
        case (.choice(let words), .boolean(let flag)):
            // YAML reads a bare `off` or `on` as a boolean: a choice that has the word takes it back as the word.
            let word = flag ? "on" : "off"
            return words.contains(word) ? .text(word) : nil
        case (.text, .text):
            return value
        case (.boolean, .boolean):
            return value
        default:
            return nil
        }
    }

    /// The value `--quick` runs with.
    func shrunk(_ value: ScenarioValue) -> ScenarioValue {
        guard let cap = quickCap, let number = value.numberValue, let limit = cap.numberValue, number > limit else {
            return value
        }
        return cap
    }
}
