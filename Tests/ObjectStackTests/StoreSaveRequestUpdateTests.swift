import Testing

@testable import ObjectStack

/// What a store reads from an update: the changed indices and whether keyed values were kept, with and without
/// the context's mask of changed values.
@Suite("StoreSaveRequest.Update")
struct StoreSaveRequestUpdateTests {
    private static func update(
        values: [StoreValue], committed: [StoreValue], mask: UInt64?, version: Int64? = 3
    ) throws -> StoreSaveRequest.Update {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)])
        ])
        let entity = try #require(model.entitiesByName["Item"])
        let id = ManagedObjectID(entity: entity, storeIdentifier: "store", primaryKey: 1)
        return .init(
            objectID: id, values: values, expectedVersion: version, committedValues: committed, changedMask: mask)
    }

    @Test("the mask names the indices to compare; an unset bit is a kept value")
    func maskedChanges() throws {
        let committed: [StoreValue] = [.string("v"), .integer(1), .null]
        let values: [StoreValue] = [.string("v"), .integer(2), .null]
        let unmasked = try Self.update(values: values, committed: committed, mask: nil)
        #expect(unmasked.changedIndices() == [1])
        // A set bit over an equal value is compared, not trusted: index 0 is not written.
        let masked = try Self.update(values: values, committed: committed, mask: 0b011)
        #expect(masked.changedIndices() == [1])
        #expect(masked.keepsCommittedValues(at: [0, 2]) && !masked.keepsCommittedValues(at: [1]))
        let unchecked = try Self.update(values: values, committed: committed, mask: 0b010, version: nil)
        #expect(!unchecked.keepsCommittedValues(at: [0]), "without a checked version nothing is known kept")
    }

    @Test("a mask is not used for rows of more than 64 values or rows of different lengths")
    func unusableMask() throws {
        var committed = [StoreValue](repeating: .integer(0), count: 70)
        var values = committed
        values[66] = .integer(1)
        let wide = try Self.update(values: values, committed: committed, mask: 0)
        #expect(wide.changedIndices() == [66])
        #expect(!wide.keepsCommittedValues(at: [66]))
        committed = [.string("v")]
        values = [StoreValue.string("w"), StoreValue.integer(1)]
        let uneven = try Self.update(values: values, committed: committed, mask: 0)
        #expect(uneven.changedIndices() == [0, 1])
        #expect(!uneven.keepsCommittedValues(at: [0]))
    }
}
