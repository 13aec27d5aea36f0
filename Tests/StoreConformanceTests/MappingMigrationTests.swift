import Foundation
import ObjectStack
import Testing

/// Migration with a mapping model on every store: what each kind of value expression gives, the policy's calls in
/// Core Data's order, an in-place migration of a store file, and bad input (a missing policy, an expression that
/// cannot be evaluated, a value that does not fit) refused with the names at fault, writing nothing.
@Suite("Mapping-model migration")
struct MappingMigrationTests {
    /// A version-1 store with the seed data, and a coordinator keeping it open when it is in memory (whose backing
    /// lives while a store is open on it).
    private func versionOneStore(_ kind: StoreType) throws -> (url: URL, keeper: TestStack?) {
        let stack = try TestStack(kind, model: try MappingModels.version1())
        try MappingModels.seed(stack.newContext())
        guard kind.fileOperations != nil else { return (stack.location, stack) }
        try stack.coordinator.remove(stack.store)
        return (stack.location, nil)
    }

    /// `MemberPolicy`, registered without the module its mapping names (`App.MemberPolicy`).
    private func policies(_ log: LockedValue<[String]> = LockedValue([])) -> EntityMigrationPolicies {
        var policies = EntityMigrationPolicies()
        policies.register("MemberPolicy") { MemberPolicy(log: log) }
        return policies
    }

    private func manager(_ log: LockedValue<[String]> = LockedValue([])) throws -> MigrationManager {
        MigrationManager(
            sourceModel: try MappingModels.version1(), destinationModel: try MappingModels.version2(),
            policies: policies(log))
    }

    /// Migrates a version-1 store into a new store of the same kind; returns a stack open on it.
    private func migrated(_ kind: StoreType, log: LockedValue<[String]>) throws -> TestStack {
        let (url, keeper) = try versionOneStore(kind)
        let destination = try TestStack(kind, model: try MappingModels.version2())
        try manager(log).migrateStore(
            from: url, type: kind, mapping: try MappingModels.mapping(), to: destination.location, type: kind)
        _ = keeper
        return destination
    }

    @Test(
        "value expressions give what they define, and relationships join the migrated objects",
        arguments: StoreType.allCases)
    func valuesAndRelationships(kind: StoreType) throws {
        let stack = try migrated(kind, log: LockedValue([]))
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let members = try context.all(ManagedObject.self, "Member")
            #expect(members.count == 6)
            for member in members {
                let name = try #require(member.value(forKey: "name") as? String)
                let number = try #require(Int(name.split(separator: " ").last!))
                #expect(member.value(forKey: "shout") as? String == name.uppercased())
                #expect(member.value(forKey: "initial") as? String == "p")
                #expect(member.value(forKey: "ageInMonths") as? Int == (20 + 5 * number) * 12)
                #expect(member.value(forKey: "petCount") as? Int == 2)
                // Each is in two of the three clubs; together those hold everyone (the union, without repeats) and
                // each club holds four people (with repeats, eight).
                #expect(member.value(forKey: "clubmates") as? Int == 6)
                #expect(member.value(forKey: "clubmateVisits") as? Int == 8)
                #expect(member.value(forKey: "mapping") as? String == "PersonToMember")
                #expect(member.value(forKey: "label") as? String == "member \(number)")
                let animals = try #require(member.value(forKey: "animals") as? Set<ManagedObject>)
                #expect(animals.compactMap { $0.value(forKey: "name") as? String } == ["dog of \(number)"])
                let groups = try #require(member.value(forKey: "groups") as? Set<ManagedObject>)
                #expect(Set(groups.compactMap { $0.value(forKey: "title") as? String }).count == 2)
                let badge = member.value(forKey: "badge") as? ManagedObject
                #expect((badge != nil) == (20 + 5 * number >= 30))
                #expect(badge?.value(forKey: "level") as? Int == (badge == nil ? nil : (20 + 5 * number) / 10))
            }
            // The fish are filtered out; every group's members came through destinationInstancesForSourceRelationship.
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Animal")) == 6)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Badge")) == 4)
            for group in try context.all(ManagedObject.self, "Group") {
                #expect((group.value(forKey: "members") as? Set<ManagedObject>)?.count == 4)
            }
        }
    }

    @Test("the policy is called at Core Data's three stages, in order", arguments: StoreType.allCases)
    func policyCalls(kind: StoreType) throws {
        let log = LockedValue<[String]>([])
        _ = try migrated(kind, log: log)
        let expected =
            ["begin PersonToMember PersonToMember"] + Array(repeating: "create", count: 6) + ["endInstanceCreation"]
            + Array(repeating: "relate", count: 6) + ["endRelationshipCreation", "validate 6", "end"]
        #expect(log.withLock { $0 } == expected)
    }

    @Test(
        "a store file migrated in place holds the new model, keeps its identifier, and reports progress",
        arguments: StoreType.fileTypes)
    func inPlace(kind: StoreType) throws {
        let (url, _) = try versionOneStore(kind)
        let identifier = try #require(try kind.metadataForStore(at: url)).identifier
        let reports = LockedValue<[MigrationProgress]>([])
        let policies = policies()
        let migrated = try MigrationManager.migrateStore(
            at: url, type: kind, from: try MappingModels.version1(), to: try MappingModels.version2(),
            mapping: try MappingModels.mapping(), policies: policies
        ) { report in reports.withLock { $0.append(report) } }
        #expect(migrated)
        let metadata = try #require(try kind.metadataForStore(at: url))
        #expect(metadata.matches(try MappingModels.version2(), configuration: nil))
        #expect(metadata.identifier == identifier)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        let stack = try TestStack(kind, model: try MappingModels.version2(), location: url)
        let context = stack.newContext()
        #expect(try context.performAndWait { try context.count("Member") } == 6)
        let phases = reports.withLock { $0.map(\.phase) }
        #expect(phases.first == .preparing && phases.last == .finished)
        #expect(phases.firstIndex(of: .replacing)! > phases.lastIndex(of: .copying)!)
        // A second run finds the store migrated already.
        try stack.coordinator.remove(stack.store)
        #expect(
            try !MigrationManager.migrateStore(
                at: url, type: kind, from: try MappingModels.version1(), to: try MappingModels.version2(),
                mapping: try MappingModels.mapping(), policies: policies))
    }

    // MARK: - Bad input

    /// Every person of a version-1 store, by name: what must still be there after a refused migration.
    private func people(_ kind: StoreType, _ url: URL) throws -> [String] {
        let stack = try TestStack(kind, model: try MappingModels.version1(), location: url)
        defer { try? stack.coordinator.remove(stack.store) }
        let context = stack.newContext()
        return try context.performAndWait {
            try context.all(ManagedObject.self, "Person").compactMap { $0.value(forKey: "name") as? String }
        }
    }

    @Test(
        "a policy nothing is registered under is an error naming the class and the mapping",
        arguments: StoreType.allCases)
    func missingPolicy(kind: StoreType) throws {
        let (url, keeper) = try versionOneStore(kind)
        let manager = MigrationManager(
            sourceModel: try MappingModels.version1(), destinationModel: try MappingModels.version2())
        let target = kind.newLocation()
        let error = try #require(throws: ObjectStackError.self) {
            try manager.migrateStore(
                from: url, type: kind, mapping: try MappingModels.mapping(), to: target, type: kind)
        }
        #expect(error.code == .migrationPolicyMissing)
        #expect(error.message.contains("App.MemberPolicy") && error.message.contains("PersonToMember"))
        if kind.fileOperations != nil { #expect(!FileManager.default.fileExists(atPath: target.path)) }
        _ = keeper
    }

    @Test(
        "an expression that cannot be evaluated is an error naming the mapping, property and expression, before any row",
        arguments: StoreType.allCases)
    func unevaluableExpression(kind: StoreType) throws {
        let (url, keeper) = try versionOneStore(kind)
        let cases: [(String, String)] = [
            ("$source.nickame", "has no property 'nickame'"),
            ("FUNCTION($source.name, 'reversedString')", "reversedString"),
            ("FUNCTION($entityPolicy, 'shout:', $source.name)", "declares no function 'shout:'"),
            ("$source.pets.name", "collection"),
            (
                "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'Nope', $source.pets)",
                "Nope"
            ),
        ]
        for (format, reason) in cases {
            var mapping = try MappingModels.mapping()
            mapping.entityMappings[0].attributeMappings[2].valueExpression = try PropertyExpression(format: format)
            let target = kind.newLocation()
            let error = try #require(throws: ObjectStackError.self) {
                try self.manager().migrateStore(from: url, type: kind, mapping: mapping, to: target, type: kind)
            }
            #expect(error.code == .invalidMappingModel, "\(format)")
            #expect(error.message.contains("PersonToMember.initial"), "\(error.message)")
            #expect(error.message.contains(reason), "\(error.message)")
            if kind.fileOperations != nil { #expect(!FileManager.default.fileExists(atPath: target.path)) }
        }
        #expect(try people(kind, url).count == 6)
        _ = keeper
    }

    @Test(
        "a value that does not fit fails the migration in place, leaving the old store with every row",
        arguments: StoreType.fileTypes)
    func unfitValueLeavesStore(kind: StoreType) throws {
        let (url, _) = try versionOneStore(kind)
        let before = try people(kind, url)
        var mapping = try MappingModels.mapping()
        // A nickname for the required name: every other person has none, which the save refuses.
        mapping.entityMappings[0].attributeMappings[0].valueExpression = try PropertyExpression(
            format: "$source.nickname")
        let policies = policies()
        let error = try #require(throws: StoreError.self) {
            try MigrationManager.migrateStore(
                at: url, type: kind, from: try MappingModels.version1(), to: try MappingModels.version2(),
                mapping: mapping, policies: policies)
        }
        #expect(error.code == .migrationFailed)
        #expect(error.message.contains("name"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: url.path + ".migrating"))
        #expect(try people(kind, url) == before)
    }

    @Test("a store of another model is refused before anything is written", arguments: StoreType.fileTypes)
    func wrongSourceStore(kind: StoreType) throws {
        let stack = try TestStack(kind, model: try MigrationModels.base())
        try stack.coordinator.remove(stack.store)
        let policies = policies()
        let error = try #require(throws: StoreError.self) {
            try MigrationManager.migrateStore(
                at: stack.location, type: kind, from: try MappingModels.version1(), to: try MappingModels.version2(),
                mapping: try MappingModels.mapping(), policies: policies)
        }
        #expect(error.code == .incompatibleModel)
        #expect(!FileManager.default.fileExists(atPath: stack.location.path + ".migrating"))
    }
}
