import Foundation
import ObjectStack
import Testing

@testable import LabWorkloads

/// Population needs no help: the plan sizes every entity so each required relationship can be wired (one-to-one
/// both ways, minimum and maximum counts, ordered to-many, many-to-many); a `population:` that makes it impossible
/// is refused at its line, with the smallest count that works.
@Suite("Population sizing")
struct PopulationSizingTests {
    /// Teams with optional members, each member a user of its own (the issue's `A.user` case), each user a badge
    /// of its own (required both ways); boards of 3 to 5 ordered seats; shelves of at most 2 slots that rows also
    /// own, 3 or more each; rooms and guests, 2 or more of each other.
    static let rosterModel = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Team" syncable="YES">
                <attribute name="name" attributeType="String"/>
                <relationship name="members" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Member" inverseName="team" inverseEntity="Member"/>
            </entity>
            <entity name="Member" syncable="YES">
                <attribute name="joined" attributeType="Date"/>
                <relationship name="team" maxCount="1" deletionRule="Nullify" destinationEntity="Team" inverseName="members" inverseEntity="Team"/>
                <relationship name="user" maxCount="1" deletionRule="Nullify" destinationEntity="User" inverseName="member" inverseEntity="User"/>
            </entity>
            <entity name="User" syncable="YES">
                <attribute name="handle" attributeType="String"/>
                <relationship name="member" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Member" inverseName="user" inverseEntity="Member"/>
                <relationship name="badge" maxCount="1" deletionRule="Cascade" destinationEntity="Badge" inverseName="holder" inverseEntity="Badge"/>
            </entity>
            <entity name="Badge" syncable="YES">
                <attribute name="level" attributeType="Integer 16"/>
                <relationship name="holder" maxCount="1" deletionRule="Nullify" destinationEntity="User" inverseName="badge" inverseEntity="User"/>
            </entity>
            <entity name="Board" syncable="YES">
                <attribute name="title" attributeType="String"/>
                <relationship name="seats" toMany="YES" minCount="3" maxCount="5" ordered="YES" deletionRule="Cascade" destinationEntity="Seat" inverseName="board" inverseEntity="Seat"/>
            </entity>
            <entity name="Seat" syncable="YES">
                <attribute name="number" attributeType="Integer 32"/>
                <relationship name="board" maxCount="1" deletionRule="Nullify" destinationEntity="Board" inverseName="seats" inverseEntity="Board"/>
            </entity>
            <entity name="Shelf" syncable="YES">
                <relationship name="slots" optional="YES" toMany="YES" maxCount="2" deletionRule="Cascade" destinationEntity="Slot" inverseName="shelf" inverseEntity="Slot"/>
            </entity>
            <entity name="Row" syncable="YES">
                <relationship name="slots" optional="YES" toMany="YES" minCount="3" deletionRule="Cascade" destinationEntity="Slot" inverseName="row" inverseEntity="Slot"/>
            </entity>
            <entity name="Slot" syncable="YES">
                <attribute name="label" attributeType="String"/>
                <relationship name="shelf" maxCount="1" deletionRule="Nullify" destinationEntity="Shelf" inverseName="slots" inverseEntity="Shelf"/>
                <relationship name="row" maxCount="1" deletionRule="Nullify" destinationEntity="Row" inverseName="slots" inverseEntity="Row"/>
            </entity>
            <entity name="Room" syncable="YES">
                <relationship name="guests" toMany="YES" minCount="2" deletionRule="Nullify" destinationEntity="Guest" inverseName="rooms" inverseEntity="Guest"/>
            </entity>
            <entity name="Guest" syncable="YES">
                <relationship name="rooms" toMany="YES" minCount="2" deletionRule="Nullify" destinationEntity="Room" inverseName="guests" inverseEntity="Room"/>
            </entity>
        </model>
        """

    /// The entities' counts in a plan, by name.
    static func counts(_ plan: PopulationPlan) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: plan.entities.map { ($0.entity.name, $0.count) })
    }

    @Test(
        "with no population given, every required relationship is satisfiable and the store audits clean",
        arguments: StoreKind.all)
    func sizesItself(kind: StoreKind) throws {
        let url = try ModelPopulationTests.bareModel(Self.rosterModel)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try ManagedObjectModel(contentsOf: url)
        let plan = try PopulationPlan(model: model, spec: PopulationSpec(rootCount: 100), seed: 7)
        let counts = Self.counts(plan)
        // Members come at 2 per team (0-4 children): 200, and each needs a user of its own, each user a badge.
        #expect(counts["Member"] == 200)
        #expect(counts["User"] == 200)
        #expect(counts["Badge"] == 200)
        let reasons = Dictionary(uniqueKeysWithValues: plan.entities.map { ($0.entity.name, $0.reason) })
        #expect(
            reasons["User"]
                == "root, raised to 200 for Member.user is a required one-to-one, so each of the 200 Member objects "
                + "needs a User of its own")
        // Rows own 3 or more slots each (2.6 on average: 260), so shelves of at most 2 slots need 130 shelves.
        #expect(counts["Slot"] == 260)
        #expect(counts["Shelf"] == 130)
        #expect((300...500).contains(counts["Seat"] ?? 0))

        let (coordinator, folder) = try ModelPopulationTests.store(kind, model)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try ModelPopulator.write(plan, into: coordinator)
        #expect(try PopulationAudit(coordinator: coordinator).problems == [])
        let (imported, importedFolder) = try ModelPopulationTests.store(kind, model)
        defer { try? FileManager.default.removeItem(at: importedFolder) }
        let importCounts = try ModelDataServiceTests.importAll(
            try ModelObjectPages(plan: plan, pageSize: 64), into: imported)
        #expect(importCounts.inserted == plan.objectCount)
        #expect(try PopulationAudit(coordinator: imported).problems == [])
    }

    @Test(
        "the sizing holds for small and odd root counts and other children ranges", arguments: [1, 3, 17],
        [0...0, 2...9])
    func smallCounts(root: Int, children: ClosedRange<Int>) throws {
        let url = try ModelPopulationTests.bareModel(Self.rosterModel)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try ManagedObjectModel(contentsOf: url)
        let plan = try PopulationPlan(
            model: model, spec: PopulationSpec(rootCount: root, children: children), seed: UInt64(root))
        let (coordinator, folder) = try ModelPopulationTests.store(.memory, model)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try ModelPopulator.write(plan, into: coordinator)
        #expect(try PopulationAudit(coordinator: coordinator).problems == [])
    }

    /// The error of a scenario on the roster model with `population`, after `FILE:`.
    static func scenarioError(population: String) throws -> String {
        let model = try ModelPopulationTests.bareModel(Self.rosterModel)
        let folder = model.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("roster.yaml")
        let text = """
            name: roster
            workload: import
            model: Test.xcdatamodel
            population:
            \(population)
            parameters: {store: sqlite, strategy: shared-coordinator}
            """
        do {
            _ = try ScenarioFile.parse(text, file: file)
            return "no error"
        } catch let error as LabError {
            return String(error.message.dropFirst(file.path.count + 1))
        }
    }

    @Test("a population: that makes a relationship impossible is refused at its key's line, with the count that works")
    func refusesGivenCount() throws {
        #expect(
            try Self.scenarioError(population: "  count: 100\n  Seat: 50")
                == "6: cannot populate Board.seats: population Seat: 50 gives 50 Seat objects, too few: each of the "
                + "100 Board objects holds at least 3 Seat of its own in Board.seats, so Seat needs at least 300; "
                + "set Seat: 300, or leave Seat out and the generator sizes it")
        #expect(
            try Self.scenarioError(population: "  User: 150\n  count: 100")
                == "5: cannot populate Member.user: population User: 150 gives 150 User objects, too few: Member.user "
                + "is a required one-to-one, so each of the 200 Member objects needs a User of its own, so User needs "
                + "at least 200; set User: 200, or leave User out and the generator sizes it")
        // A ratio is answered with the ratio too; a count that needs the others to grow is found by trying it.
        let ratio = try Self.scenarioError(population: "  count: 10\n  Guest: 0.1")
        #expect(
            ratio
                == "6: cannot populate Room.guests: population Guest: 0.1×count gives 1 Guest objects, too few: "
                + "Room.guests holds at least 2 distinct Guest, so Guest needs at least 2; set Guest: 2 (or a ratio of "
                + "at least 0.2), or leave Guest out and the generator sizes it")
        // Counts that work are kept as given.
        #expect(try Self.scenarioError(population: "  count: 100\n  Seat: 300\n  User: 200") == "no error")
    }
}
