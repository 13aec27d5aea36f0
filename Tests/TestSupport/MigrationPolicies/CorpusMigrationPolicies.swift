import ObjectStack

/// The Swift policies the corpus's mapping models need, by repository folder: each does what the repository's own
/// policy class does, under the class name its mapping model names (registered without the module, as the app's
/// module name differs from the one written in the file).
public enum CorpusMigrationPolicies {
    /// The policies for the mapping models of the repository in `folder` (`owner+name`).
    public static func policies(forFolder folder: String) -> EntityMigrationPolicies {
        var policies = EntityMigrationPolicies()
        switch folder {
        case "wibosco+CoreDataMigration-Example":
            policies.register("Post2ToPost3MigrationPolicy") { PostColorPolicy() }
        case "wibosco+CoreDataMigrationRevised-Example":
            policies.register("Post2ToPost3MigrationPolicy") { PostSectionPolicy() }
        case "objcio+core-data":
            policies.register("Country5ToCountry6Policy") { CountryContinentPolicy() }
        case "alemar11+CoreDataPlus":
            policies.register("V2to3MakerPolicy") { CarMakerPolicy() }
        default:
            break
        }
        return policies
    }
}
