import LabCore
import Testing

/// What a parameter accepts from a scenario file, and in which form the workload then reads it.
@Suite("Parameter declarations")
struct ParameterSpecTests {
    @Test("a choice that has the word takes YAML's bare off and on (read as booleans) back as the word")
    func choiceTakesOffAndOn() {
        let durability = ParameterSpec("durability", .choice(["full", "normal", "off"]), default: nil, help: "")
        #expect(durability.accept(.boolean(false)) == .text("off"))
        #expect(durability.accept(.boolean(true)) == nil, "on is not one of its words")
        #expect(durability.accept(.text("normal")) == .text("normal"))
        #expect(durability.accept(.text("sometimes")) == nil)
        let plain = ParameterSpec("mode", .choice(["sync", "async"]), default: nil, help: "")
        #expect(plain.accept(.boolean(false)) == nil)
        #expect(ParameterSpec("flag", .boolean, default: nil, help: "").accept(.boolean(false)) == .boolean(false))
    }
}
