/// The policy of an entity mapping that names none (Core Data's plain `NSEntityMigrationPolicy`): every default.
final class DefaultEntityMigrationPolicy: EntityMigrationPolicy {}
