import Testing

@testable import ObjectStack

/// The in-memory store's chunked sorted array against a plain sorted array.
@Suite("Chunked sorted array")
struct ChunkedSortedArrayTests {
    private static func elements(_ array: ChunkedSortedArray<Int>) -> [Int] {
        var result: [Int] = []
        array.forEach(from: array.partitionPoint { _ in true }) {
            result.append($0)
            return true
        }
        return result
    }

    @Test("random inserts and removes keep it sorted and equal to a sorted array; copies stay independent")
    func matchesSortedArray() {
        var generator = SystemRandomNumberGenerator()
        var array = ChunkedSortedArray<Int>()
        var reference: [Int] = []
        var snapshot: (ChunkedSortedArray<Int>, [Int])?
        for step in 0..<6_000 {
            let value = Int.random(in: 0..<3_000, using: &generator)
            if step % 3 == 2 {
                let removed = array.remove(value)
                #expect(removed == reference.contains(value))
                reference.removeAll { $0 == value }
            } else {
                array.insert(value)
                if !reference.contains(value) { reference.append(value) }
                reference.sort()
            }
            if step == 3_000 { snapshot = (array, reference) }
        }
        #expect(Self.elements(array) == reference && array.count == reference.count)
        // A copy taken earlier (a reader's state) is unchanged by the later mutations.
        #expect(Self.elements(snapshot!.0) == snapshot!.1)
        #expect(array.chunks.allSatisfy { !$0.isEmpty && $0.count <= 2 * ChunkedSortedArray<Int>.chunkCapacity })
        var backwards: [Int] = []
        array.forEachBackwards(before: array.end) {
            backwards.append($0)
            return true
        }
        #expect(backwards == reference.reversed())
        let position = array.partitionPoint { $0 >= 1_500 }
        #expect(
            position == array.end
                ? reference.allSatisfy { $0 < 1_500 } : array[position] == reference.first { $0 >= 1_500 })
    }
}
