import Foundation
import LabCore

/// The pod specs the web service serves: a synthetic catalogue made from a seed, or one read from a file.
public struct Catalogue: Sendable {
    /// The specs, in serving order.
    public var specs: [PodSpec]

    /// Creates a catalogue of the given specs.
    public init(specs: [PodSpec]) {
        self.specs = specs
    }

    // MARK: - Synthetic

    /// A deterministic catalogue of `count` pods: the same seed gives the same specs, in the same order.
    ///
    /// Names are a permutation of `0..<count`, so they are unique and arrive out of name order, as a real
    /// catalogue's would; a later `revision` keeps every name and version and changes summaries and downloads,
    /// so importing it again updates every object and inserts none.
    /// - Complexity: O(count).
    public static func synthetic(count: Int, seed: UInt64, revision: Int = 0) -> Catalogue {
        var random = SplitMix64(seed: seed)
        let stride = Self.coprimeStride(for: count, random: &random)
        let offset = count > 0 ? Int(random.next() % UInt64(count)) : 0
        let licenses = ["MIT", "Apache-2.0", "BSD-3-Clause", "ISC", nil]
        let specs = (0..<count).map { index -> PodSpec in
            let number = (index &* stride &+ offset) % count
            let downloads = Int64(random.next() % 100_000)
            let author = random.next() % 997
            let license = licenses[Int(random.next() % UInt64(licenses.count))]
            let name = String(format: "Pod%07d", number)
            return PodSpec(
                name: name, version: "\(1 + number % 4).\(number % 10).\(number % 7)", authors: "Author \(author)",
                homepage: "https://pods.example.org/\(name)", license: license,
                summary: "Synthetic pod \(number)\(revision > 0 ? ", revision \(revision)" : "").",
                downloads: downloads + Int64(revision) * 13,
                updated: 1_700_000_000 + Double(number) + Double(revision) * 86_400)
        }
        return Catalogue(specs: specs)
    }

    private static func coprimeStride(for count: Int, random: inout SplitMix64) -> Int {
        guard count > 2 else { return 1 }
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
        var stride = Int(random.next() % UInt64(count - 1)) + 1
        while gcd(stride, count) != 1 { stride = stride % (count - 1) + 1 }
        return stride
    }

    // MARK: - Pages

    /// The number of pages of `pageSize` specs (at least 1, so an empty catalogue answers one empty page).
    public func pageCount(pageSize: Int) -> Int {
        max(1, (specs.count + pageSize - 1) / pageSize)
    }

    /// Page `page` (from 1) of `pageSize` specs, or nil past the last page.
    public func page(_ page: Int, pageSize: Int) -> SpecsPage? {
        let count = pageCount(pageSize: pageSize)
        guard page >= 1, page <= count else { return nil }
        let start = min((page - 1) * pageSize, specs.count)
        let end = min(start + pageSize, specs.count)
        return SpecsPage(numberOfPages: count, page: page, result: Array(specs[start..<end]))
    }
}
