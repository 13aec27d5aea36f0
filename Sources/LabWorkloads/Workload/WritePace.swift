import Foundation

/// Holds an import to a steady rate: before each save it waits until the pods saved so far are due at `rate` pods
/// a second from the first save. A rate of 0 never waits (as fast as the importer goes).
struct WritePace: Sendable {
    /// Pods a second; 0 for no pace.
    let rate: Double
    private var start: ContinuousClock.Instant?
    private var written = 0

    /// A pace of `rate` pods a second (0: none).
    init(rate: Double) {
        self.rate = rate
    }

    /// Whether it ever waits.
    var isPaced: Bool { rate > 0 }

    /// How an importer hands a page to its context: unpaced, the whole page in one hop (the context saves it in
    /// batches); paced, one part per save of `batchSize`, each waiting for its turn.
    func parts<Spec>(of page: [Spec], batchSize: Int) -> [[Spec]] {
        guard isPaced else { return [page] }
        let size = max(batchSize, 1)
        return stride(from: 0, to: page.count, by: size).map { Array(page[$0..<min($0 + size, page.count)]) }
    }

    /// Waits until a save of `count` more pods is due, and counts them.
    mutating func waitForSave(of count: Int) async throws {
        defer { written += count }
        guard rate > 0 else { return }
        let start = self.start ?? ContinuousClock.now
        self.start = start
        let due = start + .milliseconds(Int((Double(written) / rate * 1_000).rounded()))
        if due > ContinuousClock.now { try await Task.sleep(until: due, clock: .continuous) }
    }
}
