import Foundation
import LabCore

/// A pod as plain values: what every implementation of the engine-overhead workload inserts, reads back and
/// updates, so the three sides start from and end in the same data.
public struct PodRow: Sendable, Equatable {
    /// The primary key the raw engines write (1…N, in insertion order, as the stores hand them out).
    public var id: Int64
    public var name: String
    public var version: String
    public var authors: String
    public var homepage: String?
    public var license: String?
    public var summary: String?
    public var downloads: Int64
    public var updated: Double

    /// A row of these values.
    public init(
        id: Int64, name: String, version: String, authors: String, homepage: String?, license: String?,
        summary: String?, downloads: Int64, updated: Double
    ) {
        self.id = id
        self.name = name
        self.version = version
        self.authors = authors
        self.homepage = homepage
        self.license = license
        self.summary = summary
        self.downloads = downloads
        self.updated = updated
    }

    /// The pod at `index` (from 0); deterministic, unique by name. Long enough strings that none is a small
    /// (inline) Swift string except the version and license, as real catalogue rows.
    public static func make(_ index: Int) -> PodRow {
        let scrambled = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        return PodRow(
            id: Int64(index + 1),
            name: "Pod\(String(scrambled >> 40, radix: 36))\(index)",
            version: "\(index % 5).\(index % 13).\(index % 7)",
            authors: "Author number \(index % 997)",
            homepage: index % 10 == 0 ? nil : "https://github.com/owner\(index % 1000)/pod\(index)",
            license: ["MIT", "Apache-2.0", "BSD", nil][index % 4],
            summary: "A small library, number \(index), that does one thing well on iOS and macOS.",
            downloads: Int64(scrambled >> 44),
            updated: Double(700_000_000 + index * 37))
    }

    /// The `count` operation's threshold: about half the pods have more downloads (they are spread over 0..<2^20).
    public static let countThreshold: Int64 = 1 << 19

    /// Folds every value into a number, so reading them cannot be optimised away and the sides can be compared.
    public var checksum: Int {
        name.utf8.count &+ version.utf8.count &+ authors.utf8.count &+ (homepage?.utf8.count ?? 0)
            &+ (license?.utf8.count ?? 0) &+ (summary?.utf8.count ?? 0) &+ Int(truncatingIfNeeded: downloads)
            &+ Int(updated)
    }
}
