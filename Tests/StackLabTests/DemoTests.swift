import Foundation
import StackLab
import Testing

@Suite("Demo run")
struct DemoTests {
    @Test("a demo run imports every pod and the main context sees them")
    @MainActor
    func demoRun() async throws {
        let results = try await DemoRun(objects: 300, batchSize: 100, repetitions: 2).run()
        #expect(results.map(\.repetition) == [1, 2])
        #expect(results.allSatisfy { $0.storedCount == 300 && $0.objects == 300 })
        #expect(results.allSatisfy { $0.firstScreenRows > 0 && $0.firstScreenRows <= 50 })
        #expect(results.allSatisfy { $0.objectsPerSecond > 0 })
    }

    @Test("the CSV has a header and one row per run, and the table aligns its columns")
    @MainActor
    func reportFormats() async throws {
        let results = try await DemoRun(objects: 50, batchSize: 25, repetitions: 1).run()
        let csv = DemoReport.csv(results).split(separator: "\n")
        #expect(csv.first == "run,store,objects,batch_size,import_ms,objects_per_s,first_screen_ms,first_screen_rows,stored_count")
        #expect(csv.count == 2)
        #expect(csv[1].hasPrefix("1,memory,50,25,"))
        #expect(csv[1].hasSuffix(",50"))
        let table = DemoReport.table(results).split(separator: "\n")
        #expect(table.count == 3)
        #expect(table[0].count == table[1].count && table[0].count == table[2].count)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("demo-\(UUID().uuidString).csv")
        try DemoReport.write(results, to: url)
        #expect(try String(contentsOf: url, encoding: .utf8) == DemoReport.csv(results))
    }
}
