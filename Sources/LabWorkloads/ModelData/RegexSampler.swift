import Foundation

/// Draws strings that match a regular expression, for attributes with a regular-expression constraint.
///
/// Understands the part of ICU's syntax that model files use for validation: literals and escapes, classes
/// (`[a-z0-9_]`, `[^,]`), `.`, `\d`, `\w`, `\s` and their negations `\D`, `\W`, `\S`, groups (`(…)`, `(?:…)`),
/// alternation, the quantifiers `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}` (lazy or possessive suffixes ignored), and the
/// anchors `^`, `$`, `\A`, `\z` and `\Z` (the stack matches the whole string anyway). Unbounded
/// repetition stops at 8 beyond its minimum. Anything else (look-around, back-references, Unicode properties)
/// makes `init` fail, and the generator says which attribute it cannot satisfy.
///
/// For example:
/// ```swift
/// var random = SplitMix64(seed: 1)
/// let sampler = try RegexSampler("^[a-z]{3}-\\d{2}$")
/// sampler.sample(using: &random)   // "qkx-07"
/// ```
public struct RegexSampler: Sendable {
    indirect enum Node: Sendable {
        case characters([Character])
        case sequence([Node])
        case alternation([Node])
        case repetition(Node, min: Int, max: Int)
    }

    /// Why a pattern cannot be sampled.
    public struct Unsupported: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The pattern as given.
    public let pattern: String
    let root: Node

    /// The characters `.` and negated classes draw from: printable ASCII.
    static let printable: [Character] = (0x21...0x7E).map { Character(UnicodeScalar(UInt8($0))) }
    static let digits: [Character] = Array("0123456789")
    static let word: [Character] = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

    /// Parses `pattern`.
    /// - Throws: `Unsupported` naming the construct it does not understand.
    public init(_ pattern: String) throws {
        self.pattern = pattern
        var parser = Parser(characters: Array(pattern))
        root = try parser.alternation()
        guard parser.position == parser.characters.count else {
            throw Unsupported(
                description: "unexpected '\(parser.characters[parser.position])' at offset \(parser.position)")
        }
    }

    /// One matching string.
    public func sample(using random: inout SplitMix64) -> String {
        var text = ""
        Self.emit(root, into: &text, &random)
        return text
    }

    /// Whether `text` matches the pattern in full, as the stack's validation checks it.
    public func matches(_ text: String) -> Bool {
        text.range(of: "^(?:\(pattern))$", options: .regularExpression) != nil
    }

    private static func emit(_ node: Node, into text: inout String, _ random: inout SplitMix64) {
        switch node {
        case .characters(let choices):
            if !choices.isEmpty { text.append(random.pick(choices)) }
        case .sequence(let nodes):
            for node in nodes { emit(node, into: &text, &random) }
        case .alternation(let nodes):
            emit(random.pick(nodes), into: &text, &random)
        case .repetition(let node, let min, let max):
            for _ in 0..<Int.random(in: min...max, using: &random) { emit(node, into: &text, &random) }
        }
    }

    /// A recursive-descent reader of the supported syntax.
    struct Parser {
        let characters: [Character]
        var position = 0

        var atEnd: Bool { position >= characters.count }
        var current: Character? { atEnd ? nil : characters[position] }

        mutating func alternation() throws -> Node {
            var branches = [try sequence()]
            while current == "|" {
                position += 1
                branches.append(try sequence())
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        mutating func sequence() throws -> Node {
            var nodes: [Node] = []
            while let character = current, character != "|", character != ")" {
                if character == "^" || character == "$" {
                    position += 1
                    continue
                }
                if character == "\\", position + 1 < characters.count, "AzZ".contains(characters[position + 1]) {
                    position += 2
                    continue
                }
                var atom = try self.atom()
                atom = try quantified(atom)
                nodes.append(atom)
            }
            return nodes.count == 1 ? nodes[0] : .sequence(nodes)
        }

        mutating func quantified(_ atom: Node) throws -> Node {
            guard let character = current else { return atom }
            var bounds: (Int, Int)?
            switch character {
            case "?": bounds = (0, 1)
            case "*": bounds = (0, 8)
            case "+": bounds = (1, 9)
            case "{":
                guard let close = characters[position...].firstIndex(of: "}") else {
                    throw Unsupported(description: "'{' without '}' at offset \(position)")
                }
                let inside = String(characters[(position + 1)..<close]).split(
                    separator: ",", omittingEmptySubsequences: false
                )
                .map { $0.trimmingCharacters(in: .whitespaces) }
                guard let low = Int(inside[0]), inside.count <= 2 else {
                    throw Unsupported(description: "a repetition {\(inside.joined(separator: ","))} it cannot read")
                }
                let high = inside.count == 1 ? low : (inside[1].isEmpty ? low + 8 : Int(inside[1]) ?? -1)
                guard high >= low else {
                    throw Unsupported(description: "a repetition {\(inside.joined(separator: ","))} it cannot read")
                }
                bounds = (low, high)
                position = close
            default:
                return atom
            }
            position += 1
            if current == "?" || current == "+" { position += 1 }
            return .repetition(atom, min: bounds!.0, max: bounds!.1)
        }

        mutating func atom() throws -> Node {
            let character = characters[position]
            position += 1
            switch character {
            case "(":
                if current == "?" {
                    guard position + 1 < characters.count, characters[position + 1] == ":" else {
                        let next = position + 1 < characters.count ? String(characters[position + 1]) : ""
                        throw Unsupported(description: "group syntax '(?\(next)' (look-around or flags)")
                    }
                    position += 2
                }
                let inner = try alternation()
                guard current == ")" else { throw Unsupported(description: "'(' without ')'") }
                position += 1
                return inner
            case "[": return .characters(try characterClass())
            case ".": return .characters(Array("abcdefghijklmnopqrstuvwxyz0123456789"))
            case "\\": return .characters(try escape())
            case "*", "+", "?", "{", ")":
                throw Unsupported(description: "'\(character)' with nothing before it at offset \(position - 1)")
            default: return .characters([character])
            }
        }

        mutating func escape() throws -> [Character] {
            guard let character = current else { throw Unsupported(description: "a pattern ending in '\\'") }
            position += 1
            switch character {
            case "d": return RegexSampler.digits
            case "w": return RegexSampler.word
            case "s": return [" "]
            case "D": return RegexSampler.printable.filter { !RegexSampler.digits.contains($0) }
            case "W": return RegexSampler.printable.filter { !RegexSampler.word.contains($0) }
            case "S": return RegexSampler.printable
            case "n": return ["\n"]
            case "t": return ["\t"]
            case _ where character.isLetter || character.isNumber:
                throw Unsupported(description: "the escape '\\\(character)'")
            default: return [character]
            }
        }

        mutating func characterClass() throws -> [Character] {
            var negated = false
            if current == "^" {
                negated = true
                position += 1
            }
            var members: [Character] = []
            var first = true
            while let character = current, character != "]" || first {
                first = false
                position += 1
                var low: [Character]
                if character == "\\" {
                    low = try escape()
                } else if character == "[" {
                    throw Unsupported(description: "nested or POSIX character classes")
                } else {
                    low = [character]
                }
                if low.count == 1, current == "-", position + 1 < characters.count, characters[position + 1] != "]",
                    let start = low[0].unicodeScalars.first?.value
                {
                    position += 1
                    let endCharacter = characters[position]
                    position += 1
                    guard let end = endCharacter.unicodeScalars.first?.value, end >= start, end - start < 0x3000 else {
                        throw Unsupported(description: "the class range \(low[0])-\(endCharacter)")
                    }
                    low = (start...end).compactMap { UnicodeScalar($0).map(Character.init) }
                }
                members += low
            }
            guard current == "]" else { throw Unsupported(description: "'[' without ']'") }
            position += 1
            if negated {
                let excluded = Set(members)
                members = RegexSampler.printable.filter { !excluded.contains($0) }
            }
            guard !members.isEmpty else { throw Unsupported(description: "an empty character class") }
            return members
        }
    }
}
