import Foundation
import LabWorkloads
import ObjectStack

extension FuzzTarget {
    /// The Xcode model reader: each input is the `contents` XML of a bare `.xcdatamodel`, loaded and built (warnings
    /// allowed). Seeded by default with `ModelFileSeeds`; inputs up to 64 KiB, so mutants of a real model stay whole.
    public static let modelFile = FuzzTarget(
        name: "model-file",
        dictionary: [
            "<entity name=\"E\" representedClassName=\"E\" syncable=\"YES\">", "</entity>", "<attribute name=\"a\" ",
            "attributeType=\"String\" ", "attributeType=\"Integer 64\" ", "attributeType=\"Transformable\" ",
            "attributeType=\"Date\" ", "optional=\"YES\" ", "defaultValueString=\"0\" ", "/>",
            "<relationship name=\"r\" ", "destinationEntity=\"E\" ", "inverseName=\"r\" ", "inverseEntity=\"E\" ",
            "toMany=\"YES\" ", "deletionRule=\"Cascade\" ", "deletionRule=\"No Action\" ", "maxCount=\"1\" ",
            "parentEntity=\"E\" ", "isAbstract=\"YES\" ",
            "<uniquenessConstraints><uniquenessConstraint><constraint value=\"a\"/>",
            "</uniquenessConstraint></uniquenessConstraints>",
            "<fetchIndex name=\"i\"><fetchIndexElement property=\"a\" type=\"Binary\" order=\"ascending\"/></fetchIndex>",
            "<fetchedProperty name=\"f\" optional=\"YES\"><fetchRequest name=\"fr\" entity=\"E\" predicateString=\"a == $FETCH_SOURCE\"/></fetchedProperty>",
            "<configuration name=\"C\"><memberEntity name=\"E\"/></configuration>", "renamingID=\"x\" ",
            "elementID=\"x\" ",
            "derived=\"YES\" derivationExpression=\"r.@count\" ", "&amp;", "&#0;", "<![CDATA[", "]]>", "<!--", "-->",
            "minDateTimeInterval=\"0\" ", "maxDateTimeInterval=\"86400\" ", "storedInTruthFile=\"YES\" ",
            "spotlightIndexingEnabled=\"YES\" ", "allowsCloudEncryption=\"YES\" ", "preserveAfterDeletion=\"YES\" ",
            "allowsExternalBinaryDataStorage=\"YES\" ", "usesScalarValueType=\"YES\" ", "customClassName=\"C\" ",
            "versionHashModifier=\"v\" ", "indexed=\"YES\" ", "ordered=\"YES\" ", "transient=\"YES\" ",
            "<userInfo><entry key=\"k\" value=\"v\"/></userInfo>",
            "<fetchRequest name=\"t\" entity=\"E\" fetchLimit=\"2\" fetchBatchSize=\"5\" resultType=\"2\"/>",
            "attributeType=\"Composite\" composite=\"C\" ",
            "<composite name=\"C\"><attribute name=\"x\" attributeType=\"Double\"/></composite>",
            "<fetchIndexElement expression=\"1\" expressionType=\"String\" type=\"Binary\" order=\"ascending\"/>",
            "type=\"RTree\" ", "usedWithCloudKit=\"YES\" ", "attributeType=\"Undefined\" ",
        ],
        maxInputSize: 65_536,
        defaultCorpus: { ModelFileSeeds.all() },
        execute: { data in
            do {
                // One folder per thread: two sessions in one process (parallel tests) must not share the file.
                let folder = FileManager.default.temporaryDirectory
                    .appendingPathComponent(
                        "stacklab-fuzz-model-\(ProcessInfo.processInfo.processIdentifier)-\(pthread_self())"
                    )
                    .appendingPathComponent("Fuzz.xcdatamodel")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try data.write(to: folder.appendingPathComponent("contents"))
                _ = try ManagedObjectModel(contentsOf: folder)
                return .accepted
            } catch let error as ModelFileError {
                return .rejected(error.reason)
            } catch let error as ObjectStackError {
                return .rejected(error.message)
            } catch {
                return .unexpectedError("\(type(of: error)): \(error)")
            }
        })

    /// The scenario-file reader over `workloads`: each input is a scenario's YAML. Seeded by default with
    /// `ScenarioSeeds`: scenario files as the tests write them, the repository's `Scenarios/*.yaml` and the fuzz
    /// tests' scenario inputs.
    public static func scenarioFile(workloads: WorkloadRegistry) -> FuzzTarget {
        FuzzTarget(
            name: "scenario",
            dictionary: [
                "name: ", "workload: ", "import", "startup", "merge-cost", "model: builtin:pods", "repetitions: ",
                "warmup: ", "parameters:\n", "matrix:\n", "  store: [sqlite, lmdb, memory]\n",
                "  strategy: [nested-contexts]\n",
                "  objects: ", "  mode: [sync, async]\n", "-1", "0", "1e999", "9999999999999999999", "~", "null", "[",
                "]",
                "{", "}", "&a", "*a", "!!int ", "!!str ", "? ", ": ", "\n  ", "\t", "'", "\"", "#", "---\n", "...\n",
            ],
            defaultCorpus: { ScenarioSeeds.all() },
            execute: { data in
                do {
                    _ = try ScenarioFile.parse(
                        String(decoding: data, as: UTF8.self), file: URL(fileURLWithPath: "/fuzz/scenario.yaml"),
                        workloads: workloads)
                    return .accepted
                } catch let error as LabError {
                    return .rejected(error.description)
                } catch {
                    return .unexpectedError("\(type(of: error)): \(error)")
                }
            })
    }
}
