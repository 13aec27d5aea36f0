import Foundation

/// What a save promises when the machine loses power (a kernel panic, a battery pulled), not only when the process
/// dies: the `durability` store option.
///
/// For example:
/// ```swift
/// var description = StoreDescription(type: .sqlite, url: storeURL)
/// description.durability = .full
/// ```
/// A save is atomic at every setting against a crash of the process: the operating system still writes back what
/// the process wrote. Against a power cut each store maps the setting to its engine's:
///
/// | setting | SQLite (WAL) | LMDB |
/// |---|---|---|
/// | `full` | `synchronous = FULL`: the log is synced before the save returns | a synced commit (the default) |
/// | `normal` | `synchronous = NORMAL`: synced at checkpoints (the SQLite store's default) | `MDB_NOMETASYNC` |
/// | `off` | `synchronous = OFF`: never synced | `MDB_NOSYNC` |
///
/// `full` keeps every acknowledged save; `normal` may lose the last saves but keeps the store whole; `off` may
/// lose saves and, by both engines' documentation, may leave the store damaged. `stacklab crash-test --power-loss`
/// measures each (the lab's *Reliability checks* article has the table). The in-memory store ignores the option.
public enum Durability: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Every acknowledged save survives a power cut.
    case full
    /// The store survives a power cut whole, but the last saves may be lost.
    case normal
    /// Nothing is synced: saves may be lost and the store may be damaged by a power cut.
    case off

    /// The store option's name: `"durability"`, with the value `"full"`, `"normal"` or `"off"`.
    public static let option = "durability"

    public var description: String { rawValue }

    /// The durability `options` ask for, or nil when they name none (the store's default then applies).
    /// - Throws: `StoreError(.invalidOption)` naming the value when it is not `full`, `normal` or `off`.
    public static func requested(in options: [String: String], url: URL? = nil) throws -> Durability? {
        guard let text = options[option] else { return nil }
        guard let durability = Durability(rawValue: text.lowercased()) else {
            throw StoreError(
                code: .invalidOption, message: "option durability must be full, normal or off, not '\(text)'", url: url)
        }
        return durability
    }
}
