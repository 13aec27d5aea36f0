import Foundation
import Testing

@testable import ObjectStack

/// A managed object keeps transient values, to-many state and fault batches in side state made on first use: an
/// object that never has them carries none (and stays small), clearing them makes none, and those that have them
/// read back what was written, changed in place.
@Suite("Object side state")
struct ObjectSideStateTests {
    private static func entity() throws -> EntityDescription {
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Item", attributes: [AttributeDescription(name: "code", type: .string)])
        ])
        return try #require(model.entitiesByName["Item"])
    }

    @Test("an object with no transient values, to-many state or batch has no side state and a block of 104 bytes")
    func plainObject() throws {
        let object = ManagedObject(entity: try Self.entity(), insertInto: nil)
        // Clearing what is not there, as a reset does for every registered object, makes nothing.
        object.toMany = [:]
        object.transientValues = [:]
        object.faultBatch = nil
        #expect(object.sideState == nil)
        #expect(object.toMany.isEmpty && object.transientValues.isEmpty && object.faultBatch == nil)
        // Three fields of their own made it 120 bytes; the side state's one reference, 104.
        let size = try #require(Self.blockSize(of: object))
        #expect(size <= 104)
    }

    /// The usable size of the heap block holding `object` (glibc's `malloc_usable_size`, in `malloc.h`, which
    /// Swift's Glibc module does not import: looked up at run time).
    private static func blockSize(of object: AnyObject) -> Int? {
        typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_usable_size") else { return nil }
        return unsafeBitCast(symbol, to: UsableSize.self)(Unmanaged.passUnretained(object).toOpaque())
    }

    @Test("values written to the side state read back, and in-place changes land in it")
    func writtenState() throws {
        let entity = try Self.entity()
        let object = ManagedObject(entity: entity, insertInto: nil)
        object.transientValues[3] = .string("draft")
        #expect(object.sideState != nil)
        #expect(object.transientValues[3] == .string("draft"))
        let member = ManagedObjectID(entity: entity, storeIdentifier: "s", primaryKey: 9)
        object.toMany[2, default: ToManyState()].added.append(member)
        object.toMany[2]?.committed = []
        #expect(object.toMany[2]?.added == [member] && object.toMany[2]?.committed == [])
        object.toMany = [:]
        object.transientValues.removeAll()
        #expect(object.toMany.isEmpty && object.transientValues.isEmpty)
    }
}
