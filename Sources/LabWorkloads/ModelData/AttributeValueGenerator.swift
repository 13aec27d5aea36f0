import Foundation
import ObjectStack

/// Makes the values of one attribute for the generator: of the attribute's type, within its minimum and maximum
/// (of the value for numbers and dates, of the length for strings and data), matching its regular expression,
/// distinct when a uniqueness constraint covers it, nil for a share of optional ones and the default value for
/// a share of those that have one. A transformable attribute gets a value of the kind its registered transformer
/// takes (`TransformableShape`: the class the model names, else the first kind the transformer gives back), distinct
/// too under a uniqueness constraint; a derived attribute gets none, since the stack computes it.
///
/// Building one checks that the attribute can be satisfied for `count` objects, so a model the generator cannot
/// populate is refused before anything is written.
struct AttributeValueGenerator {
    /// A value to set: a store value, or a transformable attribute's value before its transformer.
    enum Value: Sendable, Hashable {
        case store(StoreValue)
        case transformable(TransformableValue)
    }

    let entityName: String
    let attribute: AttributeDescription
    /// Whether the generator may leave the value nil: an optional attribute, unless it stores a required element of a
    /// composite (the generator gives every composite a value, so its required elements need theirs).
    var mayBeNil: Bool { attribute.isOptional && attribute.compositeElement?.isRequired != true }
    /// Whether every value must differ from every other (and never be nil).
    let unique: Bool
    let nilShare: Double
    let defaultShare: Double
    private let regex: RegexSampler?
    /// For a transformable attribute: the kind of value its transformer takes.
    let shape: TransformableShape?
    /// Numeric bounds (of the value, or of the length for strings and data), after the type's own.
    private let low: Double
    private let high: Double
    /// Whether the attribute is left nil every time: optional, and no value satisfies it.
    private(set) var alwaysNil = false
    /// Why an optional attribute is always left nil, for the plan's notes.
    private(set) var note: String?
    private var seen: Set<StoreValue> = []
    /// The objects the values are for (of the whole hierarchy, for unique ones).
    private let count: Int

    static let words = [
        "amber", "birch", "cedar", "delta", "ember", "fjord", "gale", "harbor", "iris", "juniper", "kestrel", "lumen",
        "meadow", "nectar", "onyx", "prairie", "quartz", "raven", "sierra", "tundra", "umber", "vale", "willow",
        "zephyr",
    ]
    /// 2020-01-01 in seconds since 2001, where generated dates start.
    static let firstDate = 599_616_000.0
    static let dateSpan = 3 * 365 * 86_400.0

    /// Prepares the values of `attribute` for `count` objects.
    /// - Throws: `PopulationRefusal` when a required (or unique) attribute cannot be satisfied.
    init(entityName: String, attribute: AttributeDescription, unique: Bool, count: Int, spec: PopulationSpec) throws {
        self.entityName = entityName
        self.attribute = attribute
        self.count = count
        self.unique = unique
        nilShare = spec.nilShare
        defaultShare = spec.defaultShare
        func refuse(_ reason: String) -> PopulationRefusal {
            PopulationRefusal(entity: entityName, property: attribute.name, reason)
        }
        let (low, high) = Self.bounds(of: attribute)
        self.low = low
        self.high = high
        var sampler: RegexSampler?
        var problem: String?
        var shape: TransformableShape?
        if attribute.type == .transformable {
            // What the registered transformer takes and gives back; a transformer that takes nothing is the problem.
            switch TransformableShape.resolve(attribute) {
            case .success(let resolved): shape = resolved
            case .failure(let unfit): problem = unfit.description
            }
        } else if low > high {
            problem =
                "its minimum \(attribute.minimumValue.map { "\($0)" } ?? "-") is above its maximum "
                + "\(attribute.maximumValue.map { "\($0)" } ?? "-") (for its type)"
        } else if let pattern = attribute.regularExpression, attribute.type == .string {
            // The stack checks a pattern on strings only, so on another type it constrains nothing.
            do {
                sampler = try RegexSampler(pattern)
            } catch {
                problem = "its regular expression \(pattern) uses \(error), which the generator cannot draw from"
            }
        }
        regex = sampler
        self.shape = shape
        if problem == nil, unique,
            let capacity = Self.capacity(attribute.type, low: low, high: high, regex: sampler != nil),
            capacity < Double(count)
        {
            problem =
                "a uniqueness constraint needs \(count) distinct values, but its type and bounds allow only \(Int(capacity))"
        }
        if let problem {
            guard mayBeNil, !unique else {
                throw refuse((mayBeNil ? "" : "required, and ") + problem)
            }
            alwaysNil = true
            note = "\(entityName).\(attribute.name) is left nil: \(problem)"
        }
    }

    /// The value for the object at `index` (its position in its hierarchy, which keeps unique values apart
    /// across sub-entities).
    /// - Throws: `PopulationRefusal` when no fitting value is found (a unique regular expression running out).
    mutating func value(index: Int, using random: inout SplitMix64) throws -> Value? {
        if alwaysNil { return nil }
        if !unique {
            if mayBeNil, random.chance(nilShare) { return nil }
            if !attribute.defaultValue.isNull, random.chance(defaultShare), fits(attribute.defaultValue) {
                return .store(attribute.defaultValue)
            }
        }
        if let shape { return .transformable(shape.value(index: index, unique: unique, using: &random)) }
        if let regex {
            for _ in 0..<1_000 {
                let text = regex.sample(using: &random)
                let value = StoreValue.string(text)
                guard Double(text.count) >= low, Double(text.count) <= high, regex.matches(text) else { continue }
                if unique { guard seen.insert(value).inserted else { continue } }
                return .store(value)
            }
            if mayBeNil && !unique { return nil }
            throw PopulationRefusal(
                entity: entityName, property: attribute.name,
                "found no \(unique ? "new " : "")value matching \(regex.pattern) with length \(Int(low))...\(high) in 1000 draws"
            )
        }
        return .store(unique ? uniqueValue(index, &random) : randomValue(&random))
    }

    /// Marks values as taken, so a unique attribute's regular-expression draws never give them (values a seeded
    /// store already holds, when new objects are made beside it).
    mutating func exclude(_ values: some Sequence<Value?>) {
        for case .store(let value)? in values { seen.insert(value) }
    }

    /// Whether a value satisfies the attribute's bounds (a default outside them is not used).
    func fits(_ value: StoreValue) -> Bool {
        let measured: Double?
        switch value {
        case .string(let text): measured = Double(text.count)
        case .data(let data): measured = Double(data.count)
        case .date(let date): measured = date.timeIntervalSinceReferenceDate
        default: measured = value.numericValue
        }
        if let measured, measured < low || measured > high { return false }
        if let regex, case .string(let text) = value { return regex.matches(text) }
        return true
    }

    private func randomValue(_ random: inout SplitMix64) -> StoreValue {
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            let (from, to) = span(default: 0...1_000)
            return .integer(Int64.random(in: Int64(from)...Int64(to), using: &random))
        case .double, .float:
            let (from, to) = span(default: 0...1_000)
            let value = Double.random(in: from...to, using: &random)
            return .double(attribute.type == .float ? Double(Float(value)).clamped(from, to) : value)
        case .decimal:
            let (from, to) = span(default: 0...1_000)
            let cents = Int64.random(
                in: Int64((from * 100).rounded(.up))...Int64((to * 100).rounded(.down)), using: &random)
            return .decimal(Decimal(cents) / 100)
        case .boolean:
            let (from, to) = span(default: 0...1)
            return .boolean(from == to ? from == 1 : Bool.random(using: &random))
        case .string:
            return .string(text(length: length(default: 4...24, &random), &random))
        case .date:
            let (from, to) = span(default: Self.firstDate...(Self.firstDate + Self.dateSpan))
            return .date(
                Date(timeIntervalSinceReferenceDate: Double.random(in: from...to, using: &random).rounded(.down)))
        case .binaryData:
            let count = length(default: 8...32, &random)
            return .data(Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case .uuid:
            return .uuid(Self.uuid(random.next(), random.next()))
        case .uri:
            return .uri(URL(string: "https://example.org/\(entityName.lowercased())/\(random.next() % 1_000_000)")!)
        case .transformable:
            return .null
        }
    }

    /// The `index`-th of a sequence of distinct values within the bounds.
    private func uniqueValue(_ index: Int, _ random: inout SplitMix64) -> StoreValue {
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            // From 1, like identifiers, unless the model's bounds say otherwise.
            let start = attribute.minimumValue != nil ? low : max(low, min(1, high - Double(count) + 1))
            return .integer(Int64(start) + Int64(index))
        case .double, .float, .decimal:
            let start = low.isFinite ? low : (high.isFinite ? high - 1_000_000 : 0)
            let step = low.isFinite && high.isFinite ? min(1, (high - low) / 1_000_000) : 1
            let number = start + Double(index) * step
            return attribute.type == .decimal ? .decimal(Decimal(number)) : .double(number)
        case .boolean:
            let start = low.isFinite ? Int(low) : 0
            return .boolean(start + index == 1)
        case .string:
            // Distinct by the index written first; padded with words to a drawn length.
            var text = String(index, radix: 36)
            let target = length(default: 6...24, &random)
            if target > text.count { text += "-" + self.text(length: max(0, target - text.count - 1), &random) }
            while Double(text.count) < low { text += "x" }
            return .string(text)
        case .date:
            let start = low.isFinite ? low : Self.firstDate
            return .date(Date(timeIntervalSinceReferenceDate: start + Double(index)))
        case .binaryData:
            var bytes = withUnsafeBytes(of: UInt64(index).bigEndian) { Array($0) }
            if high.isFinite, Double(bytes.count) > high { bytes = Array(bytes.suffix(Int(high))) }
            while Double(bytes.count) < max(low, 8) && (high.isInfinite || Double(bytes.count) < high) {
                bytes.append(UInt8.random(in: 0...255, using: &random))
            }
            return .data(Data(bytes))
        case .uuid:
            return .uuid(Self.uuid(random.next(), UInt64(index)))
        case .uri:
            return .uri(URL(string: "https://example.org/\(entityName.lowercased())/\(index)")!)
        case .transformable:
            return .null
        }
    }

    /// The bounds, or `fallback` moved inside them when they are open.
    private func span(default fallback: ClosedRange<Double>) -> (Double, Double) {
        // The model's own bounds decide; a type's range (all of Int16, say) is no sensible default.
        switch (attribute.minimumValue != nil, attribute.maximumValue != nil) {
        case (true, true): return (low, high)
        case (true, false): return (low, max(low, low + (fallback.upperBound - fallback.lowerBound)))
        case (false, true): return (min(high, high - (fallback.upperBound - fallback.lowerBound)), high)
        case (false, false): return (fallback.lowerBound, fallback.upperBound)
        }
    }

    private func length(default fallback: ClosedRange<Int>, _ random: inout SplitMix64) -> Int {
        let from = Int(max(low, 0))
        let to = high.isFinite ? Int(high) : max(from, from + fallback.upperBound - fallback.lowerBound)
        let (a, b) =
            low.isFinite && low > 0 || high.isFinite
            ? (from, max(from, to)) : (fallback.lowerBound, fallback.upperBound)
        return Int.random(in: a...b, using: &random)
    }

    /// Words up to `length` characters, cut to exactly `length`.
    private func text(length: Int, _ random: inout SplitMix64) -> String {
        var text = ""
        while text.count < length { text += (text.isEmpty ? "" : " ") + random.pick(Self.words) }
        return String(text.prefix(length))
    }

    /// An attribute's numeric bounds (of the value, or of the length for strings and data), after its type's own.
    static func bounds(of attribute: AttributeDescription) -> (low: Double, high: Double) {
        var low = attribute.minimumValue ?? -.infinity
        var high = attribute.maximumValue ?? .infinity
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            let range = integerRange(attribute.type)
            low = max(low.rounded(.up), range.lowerBound)
            high = min(high.rounded(.down), range.upperBound)
        case .string, .binaryData:
            low = max(0, low.rounded(.up))
            high = high.rounded(.down)
        default:
            break
        }
        return (low, high)
    }

    /// How many distinct values an attribute's type and bounds allow, nil when practically unlimited.
    static func capacity(of attribute: AttributeDescription) -> Double? {
        let (low, high) = bounds(of: attribute)
        return capacity(
            attribute.type, low: low, high: high, regex: attribute.type == .string && attribute.regularExpression != nil
        )
    }

    /// How many distinct values the type and bounds allow, nil when practically unlimited.
    static func capacity(_ type: AttributeType, low: Double, high: Double, regex: Bool) -> Double? {
        switch type {
        case .integer16, .integer32, .integer64: return high - low + 1
        case .boolean: return max(0, min(high, 1) - max(low, 0) + 1)
        case .double, .float, .decimal: return low.isFinite && high.isFinite ? (high > low ? 1e6 : 1) : nil
        case .string where !regex, .binaryData:
            // Base-36 (strings) or byte (data) numbers of up to `high` characters.
            guard high.isFinite else { return nil }
            return pow(type == .string ? 36 : 256, min(high, 12))
        default: return nil
        }
    }

    static func integerRange(_ type: AttributeType) -> ClosedRange<Double> {
        switch type {
        case .integer16: return Double(Int16.min)...Double(Int16.max)
        case .integer32: return Double(Int32.min)...Double(Int32.max)
        default: return -9.0e18...9.0e18
        }
    }

    static func uuid(_ high: UInt64, _ low: UInt64) -> UUID {
        let a = withUnsafeBytes(of: high.bigEndian) { Array($0) }
        let b = withUnsafeBytes(of: low.bigEndian) { Array($0) }
        return UUID(
            uuid: (a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]))
    }
}

extension Double {
    fileprivate func clamped(_ low: Double, _ high: Double) -> Double { Swift.min(Swift.max(self, low), high) }
}
