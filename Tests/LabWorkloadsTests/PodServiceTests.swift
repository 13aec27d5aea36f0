import Foundation
import LabWorkloads
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Pods web service and catalogues")
struct PodServiceTests {
    @Test("the server answers every page over real HTTP on loopback, and 404/400 outside them")
    func pages() async throws {
        let catalogue = Catalogue.synthetic(count: 250, seed: 11)
        let service = try await PodService.start(catalogue: catalogue, pageSize: 100)
        let client = SpecsClient(baseURL: service.baseURL)
        #expect(service.baseURL.host == "127.0.0.1")
        #expect(service.baseURL.port.map { $0 > 0 } == true, "port 0 binds a free port")
        var received: [PodSpec] = []
        for number in 1...3 {
            let page = try await client.page(number)
            #expect(page.numberOfPages == 3)
            #expect(page.page == number)
            received += page.result
        }
        #expect(received == catalogue.specs)
        #expect(
            try client.decode(try await client.data(forPage: 2), page: 2).result == Array(catalogue.specs[100..<200]),
            "the two halves of page(_:) give the same page")
        await #expect(throws: LabError.self) { try await client.page(4) }
        await #expect(throws: LabError.self) { try await client.page(0) }

        let (data, response) = try await URLSession.shared.data(from: service.baseURL.appendingPathComponent("specs"))
        #expect((response as? HTTPURLResponse)?.statusCode == 400)
        #expect(String(decoding: data, as: UTF8.self).contains("missing page"))
        let (raw, _) = try await URLSession.shared.data(
            from: URL(string: "\(service.baseURL.absoluteString)/specs?page=3")!)
        let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
        #expect(json["number_of_pages"] as? Int == 3)
        #expect((json["result"] as? [[String: Any]])?.count == 50)
        #expect((json["result"] as? [[String: Any]])?.first?["name"] is String)
        await service.stop()
    }

    @Test("the synthetic catalogue is the same for a seed, unique by name and version, and differs by seed")
    func synthetic() {
        let one = Catalogue.synthetic(count: 1_000, seed: 5)
        #expect(one.specs == Catalogue.synthetic(count: 1_000, seed: 5).specs)
        #expect(Set(one.specs.map(\.key)).count == 1_000)
        #expect(one.specs != Catalogue.synthetic(count: 1_000, seed: 6).specs)
        #expect(one.specs.map(\.name) != one.specs.map(\.name).sorted(), "names arrive out of order")
        #expect(Catalogue(specs: []).page(1, pageSize: 10)?.result.isEmpty == true)
    }

    func write(_ text: String, suffix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catalogue-\(UUID().uuidString).\(suffix)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("a JSON Lines catalogue and a TSV catalogue read into the same specs, and are served")
    func catalogueFiles() async throws {
        let jsonl = try write(
            """
            {"name":"Alamofire","version":"5.9.0","authors":"AFSF","license":"MIT","downloads":900,"updated":1.5}
            {"name":"SnapKit","version":"5.7.1","authors":"SnapKit Team","summary":"Auto Layout DSL","downloads":12,"updated":2}

            """, suffix: "jsonl")
        let tsv = try write(
            "name\tversion\tauthors\thomepage\tlicense\tsummary\tdownloads\tupdated\n"
                + "Alamofire\t5.9.0\tAFSF\t\tMIT\t\t900\t1.5\n"
                + "SnapKit\t5.7.1\tSnapKit Team\t\t\tAuto Layout DSL\t12\t2\n", suffix: "tsv")
        let fromJSON = try Catalogue.load(jsonl)
        let fromTSV = try Catalogue.load(tsv)
        #expect(fromJSON.specs == fromTSV.specs)
        #expect(fromJSON.specs.map(\.name) == ["Alamofire", "SnapKit"])
        #expect(fromJSON.specs[1].summary == "Auto Layout DSL" && fromJSON.specs[0].license == "MIT")
        let service = try await PodService.start(catalogue: fromTSV, pageSize: 1)
        let page = try await SpecsClient(baseURL: service.baseURL).page(2)
        #expect(page.numberOfPages == 2 && page.result == [fromJSON.specs[1]])
        await service.stop()
    }

    @Test("a bad catalogue file says which line and what is wrong")
    func badCatalogues() throws {
        func message(_ text: String, _ suffix: String) throws -> String {
            let url = try write(text, suffix: suffix)
            do {
                _ = try Catalogue.load(url)
                return "no error"
            } catch let error as LabError {
                return error.message.replacingOccurrences(of: url.path, with: "FILE")
            }
        }
        #expect(
            try message("{\"name\":\"A\",\"version\":\"1\",\"authors\":\"x\"}\n{\"name\":\"B\"}\n", "jsonl")
                == "FILE:2: not a pod spec; expected a JSON object with name, version and authors")
        #expect(try message("name\tversion\tauthors\tstars\n", "tsv").hasPrefix("FILE:1: unknown column 'stars'"))
        #expect(
            try message("name\tversion\tauthors\tdownloads\nA\t1\tx\tmany\n", "tsv")
                == "FILE:2: downloads is 'many'; expected a number")
        #expect(
            try message("name\tversion\tauthors\nA\t1\n", "tsv") == "FILE:2: 2 cells; expected 3, one per header column"
        )
        #expect(
            try message("name\tversion\tauthors\nA\t1\tx\nA\t1\ty\n", "tsv")
                == "FILE: spec 2 repeats A 1; expected each name and version once")
    }
}
