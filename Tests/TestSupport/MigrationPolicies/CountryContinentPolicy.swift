import Foundation
import ObjectStack

/// What objcio/core-data's `Country5ToCountry6Policy` does (Migrations/Migrations/Country5ToCountry6Policy.swift at
/// 8c8d9cd), in Swift of our own: a migrated country whose source has an `isoContinent` code gets the `Continent`
/// with that `numericISO3166Code`, found among the continents the migration has made so far or made now.
public final class CountryContinentPolicy: EntityMigrationPolicy {
    /// A policy.
    public init() {}

    public func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try defaultCreateDestinationInstances(forSource: source, in: mapping, manager: manager)
        guard let code = source.value(forKey: "isoContinent") as? NSNumber else { return }
        guard
            let country = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])
                .first
        else { throw PolicyFailure("\(mapping.name) made no country for \(source.objectID)") }
        let context = manager.destinationContext
        let continent =
            try context.registeredObjects.first {
                $0.entity.name == "Continent" && ($0.value(forKey: "numericISO3166Code") as? NSNumber) == code
            }
            ?? {
                let made = try context.insertNewObject(forEntityName: "Continent")
                try made.setValue(code, forKey: "numericISO3166Code")
                return made
            }()
        try country.setValue(continent, forKey: "continent")
    }
}
