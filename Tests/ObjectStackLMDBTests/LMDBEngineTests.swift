import CLMDB
import ObjectStackLMDB
import Testing

@Suite("LMDB engine")
struct LMDBEngineTests {
    @Test("the linked library reports a 0.9.x version")
    func version() {
        #expect(LMDBEngine.version.hasPrefix("0.9."))
        #expect(LMDBEngine.version.split(separator: ".").count == 3)
    }
}
