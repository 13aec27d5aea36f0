import Foundation
import LabCore
import Testing

/// The figures documents quote, generated from result CSVs: the number format, the queries, the tables and the
/// markers a document holds.
@Suite("Figures from results")
struct FigureTests {
    /// Two stores × two strategies × two sizes, two repetitions; store `x` has a run that failed.
    static let csv = """
        scenario,workload,store,strategy,size,repetition,run_id,timestamp,wall_ms,stall_ms,saves,error
        s,w,a,one,10,1,c1r1,2026-01-01T00:00:00Z,100,1.0,4,
        s,w,a,one,10,2,c1r2,2026-01-01T00:00:01Z,120,3.0,4,
        s,w,a,one,100,1,c2r1,2026-01-01T00:00:02Z,1000,20.0,8,
        s,w,a,one,100,2,c2r2,2026-01-01T00:00:03Z,1100,22.0,8,
        s,w,a,two,10,1,c3r1,2026-01-01T00:00:04Z,200,0.5,4,
        s,w,a,two,10,2,c3r2,2026-01-01T00:00:05Z,220,0.7,4,
        s,w,a,two,100,1,c4r1,2026-01-01T00:00:06Z,2500,5.0,8,
        s,w,a,two,100,2,c4r2,2026-01-01T00:00:07Z,2700,5.2,8,
        s,w,x,one,10,1,c5r1,2026-01-01T00:00:08Z,50000,1234.5,4,
        s,w,x,one,10,2,c5r2,2026-01-01T00:00:09Z,,,,killed
        """

    static func table() throws -> ResultTable { try ResultTable(text: csv, source: "s.csv") }

    func text(_ query: String) throws -> String { try FigureQuery("s \(query)").text(from: Self.table()) }

    /// One store, two strategies at two sizes, six repetitions: at 10 `two` takes four times `one`'s time; at 100
    /// the two are the same within a percent; at 1000 they differ by 5–15%, across the band's edge.
    static let comparisons: String = {
        var lines = ["scenario,workload,store,strategy,size,repetition,run_id,timestamp,wall_ms,error"]
        let spread = [0.98, 1.0, 1.02, 0.99, 1.01, 1.0]
        for (size, one, two) in [(10, 100.0, 400.0), (100, 1000.0, 1005.0), (1000, 100.0, 110.0)] {
            for (repetition, factor) in spread.enumerated() {
                lines.append("s,w,a,one,\(size),\(repetition + 1),r,t,\(one * factor),")
                let jitter = size == 1000 ? [0.95, 1.05, 1.0, 0.96, 1.04, 1.0][repetition] : factor
                lines.append("s,w,a,two,\(size),\(repetition + 1),r,t,\(two * jitter),")
            }
        }
        return lines.joined(separator: "\n")
    }()

    @Test("vs= says a cell against its twin from their runs: the interval as less or more, the same, or unresolved")
    func versus() throws {
        let table = try ResultTable(text: Self.comparisons, source: "v.csv")
        func text(_ query: String) throws -> String { try FigureQuery("v wall_ms \(query)").text(from: table) }
        #expect(try text("size=10 vs=strategy:one/two") == "3.9–4.1× less")
        #expect(try FigureQuery("v repetitions").text(from: table) == "6", "the runs of each cell, from the CSV")
        #expect(try text("size=10 vs=strategy:two/one") == "3.9–4.1× more")
        #expect(try text("size=100 vs=strategy:two/one") == "the same within 10%")
        #expect(try text("size=1000 vs=strategy:two/one").hasPrefix("unresolved ("))
        #expect(try text("size=1000 vs=strategy:two/one threshold=3") == "1.0–1.2× more", "a narrower band")
        #expect(try text("vs=strategy:one/two words=shorter,longer list").hasPrefix("3.9–4.1× shorter, the same"))
        // A range says the cells' intervals together when they agree, and each one when they do not.
        #expect(try text("size=10,100 vs=strategy:two/one range") == "3.9–4.1× more and the same within 10%")
        // Too few runs for any 95% interval: said, not guessed.
        let three = try ResultTable(
            text: Self.comparisons.split(separator: "\n").filter {
                !$0.contains(",4,r,") && !$0.contains(",5,r,") && !$0.contains(",6,r,")
            }
            .joined(separator: "\n"), source: "three.csv")
        #expect(
            try FigureQuery("t wall_ms vs=strategy:two/one range").text(from: three)
                == "unresolved (3 runs a side give no 95% interval)")
        let uneven = try ResultTable(
            text: Self.comparisons.split(separator: "\n").filter { !($0.contains(",6,r,") && $0.contains(",one,")) }
                .joined(separator: "\n"), source: "uneven.csv")
        #expect(try FigureQuery("u repetitions").text(from: uneven) == "5–6", "a budget's cells differ in runs")
        #expect(throws: LabError.self) { try text("vs=strategy:two") }
        #expect(throws: LabError.self) { try text("vs=strategy:two/one") }
    }

    @Test("numbers keep two significant digits and every integer digit, separate thousands, scale and round")
    func format() {
        var format = FigureFormat()
        #expect(format.text(743.6) == "744")
        #expect(format.text(0.7436) == "0.74")
        #expect(format.text(5.24) == "5.2")
        #expect(format.text(55_542.4) == "55,542")
        #expect(format.text(3) == "3", "a whole number is written whole")
        format.divisor = 1_000
        #expect(format.text(743.6) == "0.74")
        format = FigureFormat()
        format.multiple = 1_000
        #expect(format.text(666_812) == "667,000")
        format = FigureFormat()
        format.decimals = 1
        #expect(format.text(45.04) == "45.0")
        format.separatesThousands = false
        #expect(format.text(1_234.56) == "1234.6")
    }

    @Test("a metric's median per cell, one cell, a range, a list, a sum of counts")
    func queries() throws {
        #expect(try text("stall_ms store=a strategy=one size=10") == "2")
        #expect(try text("stall_ms store=a size=100 range") == "5.1–21")
        #expect(try text("stall_ms store=a strategy=one list") == "2 and 21")
        #expect(try text("stall_ms store=a strategy=one,two size=10 max") == "2")
        #expect(try text("wall_ms stat=count sum") == "9", "the failed run has no value")
        #expect(try text("wall_ms store=x stat=count") == "1")
        #expect(try text("wall_ms per=saves store=a strategy=two size=100") == "325")
        #expect(try text("wall_ms store=a size=100 ratio=strategy:two/one") == "2.5")
        #expect(try text("wall_ms store=a ratio=size:100/10 range") == "9.5–12")
        #expect(try text("param:size range to") == "10 to 100")
        #expect(try text("param:strategy list") == "one and two")
    }

    @Test("a query that cannot be answered says why, naming the file")
    func refusals() throws {
        let many = #expect(throws: LabError.self) { try text("stall_ms store=a") }
        #expect(many?.message == "s.csv: 4 cells match; expected one (add a filter, or fold: range, list)")
        let column = #expect(throws: LabError.self) { try text("stall_ms history=off") }
        #expect(column?.message == "s.csv: no column 'history' to filter on")
        let metric = #expect(throws: LabError.self) { try text("stalls_ms") }
        #expect(metric?.message.hasPrefix("s.csv: no metric column 'stalls_ms'") == true)
        let none = #expect(throws: LabError.self) { try text("stall_ms store=b") }
        #expect(none?.message == "s.csv: no cell matches")
        let commit = #expect(throws: LabError.self) { try text("commit") }
        #expect(commit?.message == "s.csv: no .env.json sidecar")
        #expect(throws: LabError.self) { try FigureQuery("s stall_ms bogus") }
        #expect(throws: LabError.self) { try FigureQuery("s stall_ms stat=mode") }
    }

    @Test("a table: a row per cell, a column per metric, – for a value no run has")
    func table() throws {
        let spec = try FigureTable(
            "s size=10 rows=store,strategy col=wall_ms:dp=0 \"col=stall_ms:dp=1:label=stall (ms)\"")
        #expect(
            try spec.markdown(from: Self.table()) == """
                | store | strategy | wall_ms | stall (ms) |
                |---|---|---|---|
                | a | one | 110 | 2.0 |
                | a | two | 210 | 0.6 |
                | x | one | 50,000 | 1,234.5 |
                """)
    }

    @Test("a document's figures are rewritten from the CSV, and each one that differed is reported with its line")
    func document() throws {
        let text = """
            # Title

            The stall is <!--fig s stall_ms store=a size=100 range-->5–20<!--/fig--> ms, one cell
            <!--fig s wall_ms store=a strategy=one size=10-->110<!--/fig--> ms.

            <!--table s size=100 rows=strategy store=a col=wall_ms:dp=0-->
            old
            <!--/table-->
            """
        let document = FigureDocument(text: text, path: "doc.md")
        #expect(document.figureCount == 3)
        let result = try document.regenerated { source in
            #expect(source == "s")
            return try Self.table()
        }
        #expect(result.changes.map(\.line) == [3, 6], "the second figure already matched")
        #expect(
            result.changes.first?.description
                == "doc.md:3: s stall_ms store=a size=100 range: says '5–20', the CSV gives '5.1–21'")
        #expect(result.text.contains("The stall is <!--fig s stall_ms store=a size=100 range-->5.1–21<!--/fig--> ms"))
        #expect(
            result.text.contains(
                "<!--table s size=100 rows=strategy store=a col=wall_ms:dp=0-->\n| strategy | wall_ms |"))
        let again = try FigureDocument(text: result.text, path: "doc.md").regenerated { _ in try Self.table() }
        #expect(again.changes.isEmpty && again.text == result.text, "regenerating is idempotent")
        let broken = FigureDocument(text: "a\n<!--fig s nope_ms-->1<!--/fig-->", path: "doc.md")
        let error = #expect(throws: LabError.self) { try broken.regenerated { _ in try Self.table() } }
        #expect(error?.message.hasPrefix("doc.md:2: s.csv: no metric column 'nope_ms'") == true)
    }
}
