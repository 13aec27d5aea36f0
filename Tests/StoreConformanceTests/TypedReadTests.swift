import Foundation
import ObjectStack
import Testing

/// One stored value of each kind, read through typed properties of several Swift types: the typed reads that skip
/// `StoreValue` (strings and scalars) must convert as `init?(storeValue:)` does.
final class Gauge: ManagedObject {
    @Attribute("count") var count: Int64
    @Attribute("count") var countAsInt: Int
    @Attribute("count") var countAsInt32: Int32
    @Attribute("count") var countAsInt16: Int16
    @Attribute("count") var countAsDouble: Double
    @Attribute("count") var countAsFloat: Float
    @Attribute("count") var countAsBool: Bool
    @Attribute("ratio") var ratio: Double
    @Attribute("ratio") var ratioAsFloat: Float
    @Attribute("ratio") var ratioAsInt64: Int64
    @Attribute("flag") var flag: Bool
    @Attribute("flag") var flagAsInt: Int
    @Attribute("flag") var flagAsDouble: Double
    @Attribute("when") var when: Date
    @Attribute("label") var label: String
    @Attribute("label") var optionalLabel: String?
    @Attribute("note") var note: String
    @Attribute("note") var optionalNote: String?
    @Attribute("unset") var unset: Int64
    @Attribute("unset") var optionalUnset: Int64?
}

@Suite("Typed reads of every stored kind")
struct TypedReadTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Gauge", managedObjectClass: Gauge.self,
                attributes: [
                    AttributeDescription(name: "count", type: .integer64),
                    AttributeDescription(name: "ratio", type: .double),
                    AttributeDescription(name: "flag", type: .boolean),
                    AttributeDescription(name: "when", type: .date),
                    AttributeDescription(name: "label", type: .string),
                    AttributeDescription(name: "note", type: .string),
                    AttributeDescription(name: "unset", type: .integer64),
                ])
        ])
    }

    /// Checks every typed read of a gauge holding count 42, ratio 2, flag true, a date, label "dial", no note.
    private static func expectReads(_ gauge: Gauge, _ when: Date, _ how: String) {
        #expect(gauge.count == 42 && gauge.countAsInt == 42 && gauge.countAsInt32 == 42, "\(how)")
        #expect(gauge.countAsInt16 == 42 && gauge.countAsDouble == 42 && gauge.countAsFloat == 42, "\(how)")
        #expect(gauge.countAsBool, "\(how)")
        #expect(gauge.ratio == 2 && gauge.ratioAsFloat == 2 && gauge.ratioAsInt64 == 2, "\(how)")
        #expect(gauge.flag && gauge.flagAsInt == 1 && gauge.flagAsDouble == 1, "\(how)")
        #expect(gauge.when == when, "\(how)")
        #expect(gauge.label == "dial" && gauge.optionalLabel == "dial", "\(how)")
        #expect(gauge.note == "" && gauge.optionalNote == nil, "\(how)")
        #expect(gauge.unset == 0 && gauge.optionalUnset == nil, "\(how)")
    }

    @Test(
        "numbers, Booleans, dates and strings read through typed properties as init?(storeValue:) converts them",
        arguments: StoreType.allCases)
    func typedReads(kind: StoreType) throws {
        let stack = try TestStack(kind, model: Self.model())
        let when = Date(timeIntervalSinceReferenceDate: 812_345_678.5)
        let writer = stack.newContext()
        let id = try writer.performAndWait { () throws in
            let gauge = Gauge(context: writer)
            gauge.count = 42
            gauge.ratio = 2
            gauge.flag = true
            gauge.when = when
            gauge.label = "dial"
            Self.expectReads(gauge, when, "unsaved changes")
            try writer.save()
            return gauge.objectID
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            let byID = try #require(try reader.existingObject(with: id) as? Gauge)
            Self.expectReads(byID, when, "read by ID")
        }
        let fetcher = stack.newContext()
        try fetcher.performAndWait { () throws in
            let fetched = try #require(try fetcher.all(Gauge.self, "Gauge").first)
            Self.expectReads(fetched, when, "fetched")
        }
    }
}
