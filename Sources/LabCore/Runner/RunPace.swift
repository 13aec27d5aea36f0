import Foundation

/// Holds each run of a scenario until it is told to go, and says when the run is done: how `compare --paired` makes
/// two builds of the lab take turns cell by cell while each runs its whole scenario in one long-lived process
/// (`run --paced`, driven by `PairedBuildRunner`).
///
/// A process per cell would pair runs as closely, but every run would then be its process's first, paying for a
/// cold heap and first-use setup inside its measured phase: a median 8% more CPU time per import on this machine.
///
/// The protocol, one line each way per run: the runner writes `paced: ready c<cell>r<repetition>` and waits for a
/// line on its input (any line; end of input lets every later run go at once), runs, then writes
/// `paced: done c<cell>r<repetition>`. Warm-up runs have repetition 0.
public struct RunPace: Sendable {
    /// Called before a run with its id (`c3r2`); returns when the run may start.
    public var waitForTurn: @Sendable (String) -> Void
    /// Called after the run with its id.
    public var turnDone: @Sendable (String) -> Void

    /// Pacing through these two functions.
    public init(waitForTurn: @escaping @Sendable (String) -> Void, turnDone: @escaping @Sendable (String) -> Void) {
        self.waitForTurn = waitForTurn
        self.turnDone = turnDone
    }

    /// The prefix of the protocol's lines, which a driver tells apart from the run's other output by it.
    public static let linePrefix = "paced: "

    /// Pacing through standard input and output, as `run --paced` does.
    public static var standardStreams: RunPace {
        RunPace(
            waitForTurn: { id in
                write("\(linePrefix)ready \(id)")
                _ = readLine(strippingNewline: true)
            },
            turnDone: { id in write("\(linePrefix)done \(id)") })
    }

    /// One line on standard output, flushed: the driver waits for it, and a pipe would otherwise hold it back.
    private static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
