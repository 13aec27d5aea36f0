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
        let country = try defaultInstance(forSource: source, in: mapping, manager: manager)
        guard let code = source.value(forKey: "isoContinent") as? NSNumber else { return }
        let continent = try manager.destinationContext.registeredOrInserted(
            "Continent", where: "numericISO3166Code", is: code)
        try country.setValue(continent, forKey: "continent")
    }
}
