/// One of `count` slices of a scenario's matrix, for spreading a large matrix over machines (`run --shard K/N`):
/// shard K runs the cells at positions K, K+N, K+2N… of the expanded matrix. The matrix expands the same way
/// from the same file everywhere, so the same shard always runs the same cells and the N shards together run
/// each cell exactly once.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// Which slice, from 1.
    public let index: Int
    /// How many slices.
    public let count: Int

    /// Parses `K/N` with 1 ≤ K ≤ N; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, index >= 1,
            index <= count
        else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// This shard's cells of `cells`, the expanded matrix in its order.
    public func select<Cell>(_ cells: [Cell]) -> [Cell] {
        cells.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }
}
