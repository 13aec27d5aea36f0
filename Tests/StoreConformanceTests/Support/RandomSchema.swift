import Foundation
import ObjectStack

/// A random model and data set for differential testing: `Item`s (maybe with a sub-entity) belonging to
/// `Group`s, with attributes of random types, optionality and indexes, and values drawn from small domains
/// full of ties, nils, case and diacritic variants, and line terminators — where stores are most likely to disagree.
struct RandomSchema {
    /// An attribute of `Item` and the values it draws from.
    struct Field {
        let name: String
        let type: AttributeType
        let isOptional: Bool
        let isIndexed: Bool
        /// Whether the attribute is declared on the sub-entity only.
        let onSubentity: Bool
    }

    let seed: UInt64
    let fields: [Field]
    let hasSubentity: Bool
    let model: ManagedObjectModel

    static let strings = [
        "", "a", "A", "á", "ab", "Ab", "abc", "b", "B", "résumé", "resume", "RESUME", "zeta", "Zeta", "ß", "ss",
        "naïve", "naive", "x_y", "x%y", "10", "9", "Ω", "ω",
        // Line terminators before, between and after letters, for MATCHES' anchors and '.'.
        "a\nb", "b\n", "\nb", "a\r\nb", "a\u{2028}",
    ]
    static let integers: [Int64] = [-3, -1, 0, 1, 2, 3, 7, 100]
    static let doubles: [Double] = [-2.5, -1, 0, 0.1, 0.5, 1, 2.5, 1e10]
    static let decimals: [Decimal] = [
        Decimal(string: "1.10")!, 2, Decimal(string: "-0.5")!, Decimal(string: "3.333")!, 0,
    ]
    static let dates: [Date] = [0, 86_400, 1_000_000_000, 1_700_000_000.5, -86_400].map(
        Date.init(timeIntervalSince1970:))
    static let uuids: [UUID] = [
        UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
        UUID(uuidString: "A0000000-0000-0000-0000-000000000000")!,
        UUID(uuidString: "5F3C1A2B-9E8D-4C7B-A6F5-1E2D3C4B5A69")!,
    ]
    static let groupNames = ["alpha", "Alpha", "beta", "Éta", "eta", ""]
    static let types: [AttributeType] = [
        .integer16, .integer32, .integer64, .double, .float, .boolean, .string, .string, .date, .decimal, .uuid,
    ]

    init(seed: UInt64) throws {
        self.seed = seed
        var random = SeededGenerator(seed: seed)
        hasSubentity = random.chance(0.5)
        var fields: [Field] = []
        for index in 0..<Int.random(in: 3...6, using: &random) {
            fields.append(
                Field(
                    name: "f\(index)", type: random.pick(Self.types), isOptional: random.chance(0.6),
                    isIndexed: random.chance(0.3), onSubentity: hasSubentity && index > 0 && random.chance(0.25)))
        }
        self.fields = fields
        func attributes(onSubentity: Bool) -> [AttributeDescription] {
            fields.filter { $0.onSubentity == onSubentity }.map {
                AttributeDescription(name: $0.name, type: $0.type, isOptional: $0.isOptional, isIndexed: $0.isIndexed)
            }
        }
        var entities = [
            EntityDescription(
                name: "Item", managedObjectClass: ManagedObject.self,
                attributes: [AttributeDescription(name: "serial", type: .integer64, isOptional: false)]
                    + attributes(onSubentity: false),
                relationships: [RelationshipDescription(name: "group", destination: "Group", inverse: "items")]),
            EntityDescription(
                name: "Group", managedObjectClass: ManagedObject.self,
                attributes: [
                    AttributeDescription(name: "serial", type: .integer64, isOptional: false),
                    AttributeDescription(name: "name", type: .string),
                    AttributeDescription(name: "rank", type: .integer32),
                ],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "group", isToMany: true)
                ]),
        ]
        if hasSubentity {
            entities.append(
                EntityDescription(
                    name: "SpecialItem", managedObjectClass: ManagedObject.self, parent: "Item",
                    attributes: attributes(onSubentity: true)))
        }
        model = try ManagedObjectModel(entities: entities)
    }

    /// A value for `field`: nil now and then when optional, otherwise from its small domain.
    static func value(for type: AttributeType, optional: Bool, using random: inout SeededGenerator) -> Any? {
        if optional && random.chance(0.2) { return nil }
        switch type {
        case .integer16, .integer32, .integer64: return NSNumber(value: random.pick(integers))
        case .double: return NSNumber(value: random.pick(doubles))
        case .float: return NSNumber(value: Float(random.pick(doubles.filter { abs($0) < 1e6 })))
        case .boolean: return NSNumber(value: random.chance(0.5))
        case .string: return random.pick(strings)
        case .date: return random.pick(dates)
        case .decimal: return random.pick(decimals)
        case .uuid: return random.pick(uuids)
        default: return nil
        }
    }

    /// Inserts the seeded data set into `context` (groups, then items in serial order) and saves.
    func populate(_ context: ManagedObjectContext) throws {
        var random = SeededGenerator(seed: seed ^ 0xDA7A)
        var groups: [ManagedObject] = []
        for serial in 0..<Int.random(in: 2...5, using: &random) {
            let group = ManagedObject(entity: model.entitiesByName["Group"]!, insertInto: context)
            try group.setValue(Int64(serial), forKey: "serial")
            try group.setValue(random.chance(0.2) ? nil : random.pick(Self.groupNames), forKey: "name")
            try group.setValue(Self.value(for: .integer32, optional: true, using: &random), forKey: "rank")
            groups.append(group)
        }
        for serial in 0..<Int.random(in: 15...45, using: &random) {
            let special = hasSubentity && random.chance(0.4)
            let item = ManagedObject(
                entity: model.entitiesByName[special ? "SpecialItem" : "Item"]!, insertInto: context)
            try item.setValue(Int64(serial), forKey: "serial")
            for field in fields where !field.onSubentity || special {
                var value = Self.value(for: field.type, optional: field.isOptional, using: &random)
                if value == nil && !field.isOptional {
                    value = Self.value(for: field.type, optional: false, using: &random)
                }
                try item.setValue(value, forKey: field.name)
            }
            if random.chance(0.8) { try item.setValue(random.pick(groups), forKey: "group") }
        }
        try context.save()
    }
}
