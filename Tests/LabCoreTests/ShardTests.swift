import LabCore
import Testing

/// `--shard K/N`: which cells a shard runs.
@Suite("Shards of a matrix")
struct ShardTests {
    @Test("K/N parses only with 1 ≤ K ≤ N")
    func parse() {
        #expect(Shard("2/3") == Shard("2/3"))
        #expect(Shard("2/3")?.index == 2 && Shard("2/3")?.count == 3)
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2/3", ""] { #expect(Shard(bad) == nil, "\(bad)") }
    }

    @Test("The shards of a matrix partition it: every cell once, by position")
    func partition() throws {
        let cells = Array(1...10)
        let shards = (1...3).map { Shard("\($0)/3")!.select(cells) }
        #expect(shards[0] == [1, 4, 7, 10])
        #expect(shards[1] == [2, 5, 8])
        #expect(shards.flatMap { $0 }.sorted() == cells)
    }
}
