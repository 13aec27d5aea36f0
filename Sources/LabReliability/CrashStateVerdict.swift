/// What one crash state held when ObjectStack opened it: whether it opened, whether it is whole, and which
/// acknowledged saves it kept.
public struct CrashStateVerdict: Sendable, Codable, Equatable {
    public let state: CrashState
    /// The highest save acknowledged before the power went.
    public let acknowledged: Int64
    /// The last save the store holds; nil when it did not open or a save in it is torn.
    public var lastSave: Int64?
    /// Why the store did not open (the store's error, or the reader dying on the state).
    public var openFailure: String?
    /// What the integrity check found (`PRAGMA integrity_check`; LMDB's walk of rows and indexes), or why it failed.
    public var integrityProblems: [String] = []
    /// The save found there in part, or a store that disagrees with itself (a row without its inverse).
    public var tornSave: String?

    /// A verdict on `state`, before anything is checked.
    public init(state: CrashState, acknowledged: Int64) {
        self.state = state
        self.acknowledged = acknowledged
    }

    /// How many acknowledged saves the state lost.
    public var lostSaves: Int64 { lastSave.map { max(0, acknowledged - $0) } ?? 0 }

    /// Whether the state opened, whole, with every acknowledged save.
    public var isClean: Bool { openFailure == nil && integrityProblems.isEmpty && tornSave == nil && lostSaves == 0 }

    /// One line for a report: `state 17 (sampled) at event 4211: lost saves 12…14 (acknowledged 14, store at 11)`.
    public var summary: String {
        var parts: [String] = []
        if let openFailure { parts.append("did not open: \(openFailure)") }
        if let first = integrityProblems.first {
            parts.append(
                "integrity: \(first)\(integrityProblems.count > 1 ? " (+\(integrityProblems.count - 1) more)" : "")")
        }
        if let tornSave { parts.append("torn: \(tornSave)") }
        if lostSaves > 0, let lastSave {
            parts.append("lost \(lostSaves) acknowledged save(s) (acknowledged \(acknowledged), store at \(lastSave))")
        }
        // One line, whatever an engine's message holds.
        let line = parts.joined(separator: "; ").split(whereSeparator: \.isNewline).joined(separator: " ")
        return "\(state): " + (parts.isEmpty ? "clean" : line)
    }
}
