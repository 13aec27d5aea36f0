import Foundation

extension Scenario {
    /// A matrix parameter and one of its values: the cells with that value are the ones every other cell is compared
    /// with (its twin differs from it in that parameter alone), as `strategy=shared-coordinator`.
    public struct Reference: Sendable, Hashable, CustomStringConvertible {
        /// The matrix parameter.
        public var column: String
        /// The value of the reference cells.
        public var value: String

        /// The reference `column=value`.
        public init(column: String, value: String) {
            self.column = column
            self.value = value
        }

        /// Parses `column=value`; nil when it has no `=` or an empty side.
        public init?(_ text: String) {
            let parts = text.split(separator: "=", maxSplits: 1).map {
                String($0).trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            self.init(column: parts[0], value: parts[1])
        }

        public var description: String { "\(column)=\(value)" }
    }

    /// The most rounds a cell gets under a budget when the scenario does not say.
    public static let defaultMaxRepetitions = 30

    /// The most rounds any cell gets: `repetitions` without a budget.
    public var mostRepetitions: Int {
        guard budget != nil else { return repetitions }
        return max(repetitions, maxRepetitions ?? Self.defaultMaxRepetitions)
    }

    /// Parses a budget: seconds (`90`, `90s`), minutes (`10m`) or hours (`1h`), or a sum of them (`1m30s`).
    /// - Returns: the seconds; nil when it is not such a time or not above zero.
    public static func budgetSeconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in text.trimmingCharacters(in: .whitespaces) {
            if character.isNumber || character == "." {
                number.append(character)
            } else if let unit = units[character], let value = Double(number) {
                total += value * unit
                number = ""
                sawUnit = true
            } else {
                return nil
            }
        }
        if !number.isEmpty {
            // A bare number is seconds, but not after a unit (`1m30` is a typo for `1m30s`, not 90 seconds).
            guard !sawUnit, let value = Double(number) else { return nil }
            total += value
        } else if !sawUnit {
            return nil
        }
        return total > 0 && total.isFinite ? total : nil
    }

    /// `10m`, `1m30s`, `45s`: a budget as the lab writes it.
    public static func budgetText(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
        let parts = [(hours, "h"), (minutes, "m"), (rest, "s")].filter { $0.0 > 0 }.map { "\($0.0)\($0.1)" }
        return parts.isEmpty ? "0s" : parts.joined()
    }

    /// Checks a reference against the matrix: its parameter is a matrix list (or a case parameter) that has its
    /// value and another.
    /// - Returns: nil when it fits, else what is wrong.
    public func problem(with reference: Reference) -> String? {
        let values: [String]
        if let axis = matrix.first(where: { $0.name == reference.column }) {
            values = axis.values.map(\.description)
        } else if caseKeys.contains(reference.column) {
            values = cases.compactMap { $0[reference.column]?.description }
        } else {
            return "reference \(reference): \(reference.column) is not a matrix list of scenario '\(name)'; "
                + "expected one of \(axisNames.joined(separator: ", "))"
        }
        guard values.contains(reference.value) else {
            return "reference \(reference): \(reference.column) has no value '\(reference.value)'; "
                + "expected one of \(values.joined(separator: ", "))"
        }
        guard values.count > 1 else {
            return "reference \(reference): \(reference.column) has no other value to compare with"
        }
        return nil
    }
}
