import Foundation

extension PowerLossCampaign.Outcome {
    /// The columns of the table and of the CSV, in order, after the store and durability.
    private var cells: [String] {
        [
            String(states), String(failedToOpen), String(failedIntegrity), String(lostAcknowledged), String(mostLost),
            String(torn),
        ]
    }

    /// The outcomes as a Markdown table, one row per store and durability.
    ///
    /// For example:
    /// ```swift
    /// print(PowerLossCampaign.Outcome.table(outcomes))
    /// ```
    public static func table(_ outcomes: [Self]) -> String {
        var lines = [
            "| store | durability | crash states | failed to open | failed integrity | lost an acknowledged save | "
                + "most saves lost | torn save |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for outcome in outcomes {
            lines.append(
                "| " + ([outcome.store.name, outcome.durability.rawValue] + outcome.cells).joined(separator: " | ")
                    + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// The outcomes as CSV: the store, durability, recorded saves and seed name a row, then `timestamp`, then the
    /// counts (the columns after `timestamp` are what `stacklab figures` reads as figures).
    /// - Parameters:
    ///   - seed: the states' seed.
    ///   - started: when the run started.
    public static func csv(_ outcomes: [Self], seed: UInt64, started: Date) -> String {
        let header = [
            "store", "durability", "saves", "seed", "timestamp", "crash_states", "failed_open", "failed_integrity",
            "lost_acknowledged", "most_lost", "torn",
        ]
        let timestamp = ISO8601DateFormatter().string(from: started)
        let rows = outcomes.map { outcome in
            ([outcome.store.name, outcome.durability.rawValue, String(outcome.saves), String(seed), timestamp]
                + outcome.cells).joined(separator: ",")
        }
        return ([header.joined(separator: ",")] + rows).joined(separator: "\n") + "\n"
    }
}
