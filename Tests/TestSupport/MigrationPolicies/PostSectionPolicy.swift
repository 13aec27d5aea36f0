import Foundation
import ObjectStack

/// What wibosco/CoreDataMigrationRevised-Example's `Post2ToPost3MigrationPolicy` does
/// (CoreDataMigration-Example/CoreData/Migration/Policies/Post2ToPost3MigrationPolicy.swift at 3e5f873), in Swift of
/// our own: each migrated post gets one `Section` at index 0 whose body is the source post's `content` and whose
/// title is that content's first four characters followed by "...".
public final class PostSectionPolicy: EntityMigrationPolicy {
    /// A policy.
    public init() {}

    public func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let post = try defaultInstance(forSource: source, in: mapping, manager: manager)
        let body = source.value(forKey: "content") as? String
        let section = try manager.destinationContext.insertNewObject(forEntityName: "Section")
        try section.setValue(body.map { String($0.prefix(4)) + "..." }, forKey: "title")
        try section.setValue(body, forKey: "body")
        try section.setValue(0, forKey: "index")
        try section.setValue(post, forKey: "post")
        try post.setValue(Set([section]), forKey: "sections")
    }
}
