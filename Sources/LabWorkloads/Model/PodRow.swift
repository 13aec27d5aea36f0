import Foundation
import LabCore

/// A pod as plain values with the primary key the raw engines write: what every implementation of the
/// engine-overhead workload inserts, reads back and updates, so the three sides start from and end in the same data.
///
/// Its values are a `PodSpec`, the one definition of a pod's fields; `row.name` reads `row.spec.name`.
///
/// For example:
/// ```swift
/// var row = PodRow.make(41)
/// row.downloads += 1
/// ```
@dynamicMemberLookup
public struct PodRow: Sendable, Equatable {
    /// The primary key the raw engines write (1…N, in insertion order, as the stores hand them out).
    public var id: Int64
    /// The pod's values.
    public var spec: PodSpec

    /// A row of `spec` under the primary key `id`.
    @inlinable
    public init(id: Int64, spec: PodSpec) {
        self.id = id
        self.spec = spec
    }

    /// A row of these values (the raw engines decode a row into it column by column).
    @inlinable
    public init(
        id: Int64, name: String, version: String, authors: String, homepage: String?, license: String?,
        summary: String?, downloads: Int64, updated: Double
    ) {
        self.init(
            id: id,
            spec: PodSpec(
                name: name, version: version, authors: authors, homepage: homepage, license: license,
                summary: summary, downloads: downloads, updated: updated))
    }

    /// A value of the pod's spec, read or written through the row (`row.downloads += 1`). Inlinable, so a read in
    /// the engine comparison's timed loops is a field access.
    @inlinable
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PodSpec, Value>) -> Value {
        get { spec[keyPath: keyPath] }
        set { spec[keyPath: keyPath] = newValue }
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
        spec.name.utf8.count &+ spec.version.utf8.count &+ spec.authors.utf8.count &+ (spec.homepage?.utf8.count ?? 0)
            &+ (spec.license?.utf8.count ?? 0) &+ (spec.summary?.utf8.count ?? 0)
            &+ Int(truncatingIfNeeded: spec.downloads) &+ Int(spec.updated)
    }
}
