import Foundation
import LabCore
import ObjectStack

/// The app a startup launch plays on a scenario's store file (`store_file:`): the model bundle and the version the
/// app ships, how the store reaches that version, and the first screen's fetch.
///
/// For example, the launch of an app at Moody 5 on a copy of a Moody 2 store, walking the history:
/// ```swift
/// let app = StoreFileApp(
///     bundle: moodyBundle, version: "Moody 5", migration: .history, entity: "Mood", sort: ["-date"], limit: 50)
/// let report = await LaunchChild(storeFile: app, url: copy, mode: .sync).run()
/// ```
/// It travels to the launch's child process as command-line arguments (`arguments`).
public struct StoreFileApp: Sendable, Equatable {
    /// The model bundle (`.xcdatamodeld`).
    public var bundle: URL
    /// The version the app ships.
    public var version: String
    /// How the store reaches it: `none` (it is at it), `lightweight` (one inferred migration from the store's
    /// version) or `history` (a step at a time through the bundle's versions, with the project's mapping models).
    public var migration: StartupMigration
    /// The first screen: the entity listed, its sort (`-key` descending), predicate, rows, and the attribute each
    /// row shows.
    public var entity: String, sort: [String], predicate: String?, limit: Int, shownKey: String?

    /// An app at `version` of `bundle` whose first screen lists `entity`.
    public init(
        bundle: URL, version: String, migration: StartupMigration, entity: String, sort: [String] = [],
        predicate: String? = nil, limit: Int = 50, shownKey: String? = nil
    ) {
        self.bundle = bundle
        self.version = version
        self.migration = migration
        self.entity = entity
        self.sort = sort
        self.predicate = predicate
        self.limit = limit
        self.shownKey = shownKey
    }

    /// The app of a scenario's model file and first screen.
    init(selection: ModelFileSelection, screen: FirstScreen, migration: StartupMigration) {
        self.init(
            bundle: selection.url, version: selection.version.name, migration: migration, entity: screen.entity.name,
            sort: screen.sort.map { ($0.ascending ? "" : "-") + $0.key }, predicate: screen.predicate?.description,
            limit: screen.limit, shownKey: screen.shownKey)
    }

    /// The arguments of `stacklab child launch` that carry the app.
    public var arguments: [String] {
        var arguments = [
            "--bundle", bundle.path, "--version", version, "--migration", migration.rawValue, "--screen-entity",
            entity, "--screen-limit", String(limit),
        ]
        // `--name=value`: a value starting with '-' (a descending key) is not read as an option.
        if !sort.isEmpty { arguments.append("--screen-sort=" + sort.joined(separator: ",")) }
        if let predicate { arguments.append("--screen-predicate=" + predicate) }
        if let shownKey { arguments += ["--screen-key", shownKey] }
        return arguments
    }

    /// The first screen's fetch.
    /// - Throws: `ObjectStackError` for a predicate that does not parse.
    public func request() throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        request.sortDescriptors = sort.map { key in
            key.hasPrefix("-") ? SortKey(String(key.dropFirst()), ascending: false) : SortKey(key)
        }
        request.predicate = try predicate.map { try FetchPredicate(format: $0) }
        request.fetchLimit = limit
        return request
    }
}
