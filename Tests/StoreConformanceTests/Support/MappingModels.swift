import Foundation
import ObjectStack

/// Two model versions no lightweight migration covers, a mapping model between them built in code, and a policy:
/// the mapping-model migration tests' fixtures.
///
/// Version 1: `Person` (name, nickname, age; pets, clubs), `Pet` (name, kind; owner), `Club` (title; members, a
/// many-to-many with Person) and `Note` (text). Version 2: `Member` (from Person: name, shout, initial, ageInMonths,
/// petCount, clubmates, clubmateVisits, mapping, label; animals, groups, badge), `Animal` (from Pet, fish left
/// out: name; owner), `Group` (from Club: title; members), `Badge` (made by the policy for members aged 30 and more:
/// level; member). Notes are not migrated.
enum MappingModels {
    static func version1() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Person",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false),
                    AttributeDescription(name: "nickname", type: .string),
                    AttributeDescription(name: "age", type: .integer32),
                ],
                relationships: [
                    RelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", isToMany: true),
                    RelationshipDescription(name: "clubs", destination: "Club", inverse: "members", isToMany: true),
                ]),
            EntityDescription(
                name: "Pet",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false),
                    AttributeDescription(name: "kind", type: .string),
                ],
                relationships: [RelationshipDescription(name: "owner", destination: "Person", inverse: "pets")]),
            EntityDescription(
                name: "Club", attributes: [AttributeDescription(name: "title", type: .string, isOptional: false)],
                relationships: [
                    RelationshipDescription(name: "members", destination: "Person", inverse: "clubs", isToMany: true)
                ]),
            EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string)]),
        ])
    }

    static func version2() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Member",
                attributes: [
                    AttributeDescription(name: "name", type: .string, isOptional: false),
                    AttributeDescription(name: "shout", type: .string),
                    AttributeDescription(name: "initial", type: .string),
                    AttributeDescription(name: "ageInMonths", type: .integer64),
                    AttributeDescription(name: "petCount", type: .integer16),
                    AttributeDescription(name: "clubmates", type: .integer32),
                    AttributeDescription(name: "clubmateVisits", type: .integer32),
                    AttributeDescription(name: "mapping", type: .string),
                    AttributeDescription(name: "label", type: .string),
                ],
                relationships: [
                    RelationshipDescription(name: "animals", destination: "Animal", inverse: "owner", isToMany: true),
                    RelationshipDescription(name: "groups", destination: "Group", inverse: "members", isToMany: true),
                    RelationshipDescription(name: "badge", destination: "Badge", inverse: "member"),
                ]),
            EntityDescription(
                name: "Animal", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
                relationships: [RelationshipDescription(name: "owner", destination: "Member", inverse: "animals")]),
            EntityDescription(
                name: "Group", attributes: [AttributeDescription(name: "title", type: .string, isOptional: false)],
                relationships: [
                    RelationshipDescription(name: "members", destination: "Member", inverse: "groups", isToMany: true)
                ]),
            EntityDescription(
                name: "Badge", attributes: [AttributeDescription(name: "level", type: .integer16, isOptional: false)],
                relationships: [RelationshipDescription(name: "member", destination: "Member", inverse: "badge")]),
        ])
    }

    static let policyName = "App.MemberPolicy"

    static func expression(_ format: String) throws -> PropertyExpression {
        try PropertyExpression(format: format)
    }

    /// The mapping model from version 1 to version 2.
    static func mapping() throws -> MappingModel {
        MappingModel(entityMappings: [
            EntityMapping(
                name: "PersonToMember", kind: .custom, sourceEntityName: "Person", destinationEntityName: "Member",
                attributeMappings: [
                    // No expression: the same-named source attribute.
                    PropertyMapping(name: "name"),
                    PropertyMapping(
                        name: "shout", valueExpression: try expression("FUNCTION($source.name, 'uppercaseString')")),
                    PropertyMapping(
                        name: "initial",
                        valueExpression: try expression("FUNCTION($source.name, 'substringToIndex:', 1)")),
                    PropertyMapping(name: "ageInMonths", valueExpression: try expression("$source.age * 12")),
                    PropertyMapping(name: "petCount", valueExpression: try expression("$source.pets.@count")),
                    PropertyMapping(
                        name: "clubmates",
                        valueExpression: try expression("$source.clubs.@distinctUnionOfSets.members.@count")),
                    PropertyMapping(
                        name: "clubmateVisits",
                        valueExpression: try expression("$source.clubs.@unionOfObjects.members.@count")),
                    PropertyMapping(name: "mapping", valueExpression: try expression("$entityMapping.name")),
                    PropertyMapping(
                        name: "label",
                        valueExpression: try expression("FUNCTION($entityPolicy, 'label:', $source.name)")),
                ],
                relationshipMappings: [
                    PropertyMapping(
                        name: "animals",
                        valueExpression: try expression(
                            "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', "
                                + "'PetToAnimal', $source.pets)")),
                    PropertyMapping(
                        name: "groups",
                        valueExpression: try expression(
                            "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', "
                                + "'ClubToGroup', $source.clubs)")),
                    PropertyMapping(name: "badge"),
                ],
                entityMigrationPolicyClassName: policyName),
            EntityMapping(
                name: "PetToAnimal", kind: .copy, sourceEntityName: "Pet", destinationEntityName: "Animal",
                filterPredicate: try FetchPredicate(format: "kind != 'fish'"),
                attributeMappings: [PropertyMapping(name: "name", valueExpression: try expression("$source.name"))],
                relationshipMappings: [
                    PropertyMapping(
                        name: "owner",
                        valueExpression: try expression(
                            "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', "
                                + "'PersonToMember', $source.owner)"))
                ]),
            EntityMapping(
                name: "ClubToGroup", kind: .copy, sourceEntityName: "Club", destinationEntityName: "Group",
                attributeMappings: [PropertyMapping(name: "title", valueExpression: try expression("$source.title"))],
                relationshipMappings: [
                    PropertyMapping(
                        name: "members",
                        valueExpression: try expression(
                            "FUNCTION($manager, 'destinationInstancesForSourceRelationshipNamed:sourceInstances:', "
                                + "'members', $source.members)"))
                ]),
            EntityMapping(name: "Badge", kind: .add, sourceEntityName: nil, destinationEntityName: "Badge"),
            EntityMapping(name: "Note", kind: .remove, sourceEntityName: "Note", destinationEntityName: nil),
        ])
    }

    /// Fills a version-1 store: 6 people aged 20 to 45 (every other without a nickname), a dog and a fish each, 3
    /// clubs (club k has the people whose number is not k modulo 3, so clubs share members), 2 notes.
    static func seed(_ context: ManagedObjectContext) throws {
        try context.performAndWait { () throws in
            let clubs = try (0..<3).map { number -> ManagedObject in
                let club = try context.insertNewObject(forEntityName: "Club")
                try club.setValue("Club \(number)", forKey: "title")
                return club
            }
            for number in 0..<6 {
                let person = try context.insertNewObject(forEntityName: "Person")
                try person.setValue("person \(number)", forKey: "name")
                if number % 2 == 0 { try person.setValue("p\(number)", forKey: "nickname") }
                try person.setValue(20 + 5 * number, forKey: "age")
                for kind in ["dog", "fish"] {
                    let pet = try context.insertNewObject(forEntityName: "Pet")
                    try pet.setValue("\(kind) of \(number)", forKey: "name")
                    try pet.setValue(kind, forKey: "kind")
                    try pet.setValue(person, forKey: "owner")
                }
                try person.setValue(
                    Set(clubs.enumerated().filter { $0.offset != number % 3 }.map(\.element)), forKey: "clubs")
            }
            for text in ["one", "two"] {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(text, forKey: "text")
            }
            try context.save()
        }
    }
}

/// The policy of `PersonToMember`: records each call it gets, makes a Badge for members aged 30 or more in the first
/// stage, and answers `FUNCTION($entityPolicy, 'label:', …)`.
final class MemberPolicy: EntityMigrationPolicy {
    let log: LockedValue<[String]>

    init(log: LockedValue<[String]>) {
        self.log = log
    }

    private func record(_ call: String) { log.withLock { $0.append(call) } }

    func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        record("begin \(mapping.name) \(manager.currentEntityMapping?.name ?? "-")")
    }

    func createDestinationInstances(
        forSource source: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    )
        throws
    {
        record("create")
        try defaultCreateDestinationInstances(forSource: source, in: mapping, manager: manager)
        guard let age = source.value(forKey: "age") as? Int, age >= 30,
            let member = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])
                .first
        else { return }
        let badge = try manager.destinationContext.insertNewObject(forEntityName: "Badge")
        try badge.setValue(age / 10, forKey: "level")
        try badge.setValue(member, forKey: "member")
    }

    func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        record("endInstanceCreation")
    }

    func createRelationships(
        forDestination destination: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
    )
        throws
    {
        record("relate")
        try defaultCreateRelationships(forDestination: destination, in: mapping, manager: manager)
    }

    func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        record("endRelationshipCreation")
    }

    func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        record(
            "validate \(manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil).count)")
    }

    func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        record("end")
    }

    var expressionFunctions: [String: ([StoreValue]) throws -> StoreValue] {
        [
            "label:": { arguments in
                guard case .string(let name)? = arguments.first else { return .null }
                return .string("member " + name.split(separator: " ").last.map(String.init)!)
            }
        ]
    }
}
