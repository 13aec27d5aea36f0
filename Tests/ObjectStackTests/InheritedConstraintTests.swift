import Foundation
import Testing

@testable import ObjectStack

/// A sub-entity inherits its parent's uniqueness constraints whatever the order the entities are listed in
/// (a model file lists them by name: Moody 3's Continent comes before its parent GeographicRegion).
@Suite("Inherited uniqueness constraints")
struct InheritedConstraintTests {
    @Test("a sub-entity listed before its parent still inherits the parent's uniqueness constraint")
    func subEntityBeforeParent() throws {
        let child = EntityDescription(name: "Continent", parent: "Region")
        let parent = EntityDescription(
            name: "Region", isAbstract: true,
            attributes: [AttributeDescription(name: "code", type: .integer16, isOptional: false)],
            uniquenessConstraints: [["code"]])
        _ = try ManagedObjectModel(entities: [child, parent])
        #expect(child.applicableUniquenessConstraints.map { $0.declaring.name } == ["Region"])
        #expect(child.applicableUniquenessConstraints.map { $0.attributes.map(\.name) } == [["code"]])
        #expect(child.resolvedUniquenessConstraints.map { $0.map(\.name) } == [["code"]])
    }
}
