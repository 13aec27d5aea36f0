import Foundation
import LabWorkloads

/// What every kill campaign is given (`KillCampaign`, `TwoWriterCampaign`, `HistoryCampaign`): the stacklab binary
/// its children run, the store, how many kills, the seed of the children's data, and how long a child may run
/// before its kill.
public struct CampaignSettings: Sendable {
    /// The stacklab binary the children are started from.
    public let executable: URL
    /// The store the children write to.
    public let store: StoreKind
    /// Kills (for the two-writer campaign: rounds, each killing both writers).
    public let kills: Int
    /// The seed of the children's data.
    public let seed: UInt64
    /// The longest a child runs before its kill; the moment is random below it.
    public let maximumRunMilliseconds: Int

    /// Settings for `kills` kills of children started from `executable` on a `store`.
    public init(executable: URL, store: StoreKind, kills: Int, seed: UInt64, maximumRunMilliseconds: Int = 400) {
        self.executable = executable
        self.store = store
        self.kills = kills
        self.seed = seed
        self.maximumRunMilliseconds = maximumRunMilliseconds
    }

    /// Runs `body` in a fresh temporary folder whose name starts with `prefix`, removed afterwards.
    func inScratchFolder<Result>(_ prefix: String, _ body: (URL) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }
}
