// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "StackLab",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectStack", targets: ["ObjectStack"]),
        .library(name: "ObjectStackSQLite", targets: ["ObjectStackSQLite"]),
        .library(name: "ObjectStackLMDB", targets: ["ObjectStackLMDB"]),
        // The lab's engine, its workloads and its verbs, for writing your own workloads and your own lab executable
        // (no GRDB, no raw engine code).
        .library(name: "LabKit", targets: ["LabCore", "LabWorkloads", "LabCommands"]),
        .executable(name: "stacklab", targets: ["stacklab"]),
        // The engine comparison: the only product that links GRDB and the raw C engines.
        .executable(name: "stacklab-bench", targets: ["stacklab-bench"]),
        // The I/O recorder `stacklab crash-test --power-loss` preloads into its save loops (LD_PRELOAD): a shared
        // library, since SwiftPM links a plain C target into its users statically.
        .library(name: "StackLabIOLog", type: .dynamic, targets: ["CIOLog"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        // The lab: scenario files (YAML), latency percentiles, the paged pods web service.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        // The engine-overhead workload: GRDB's Codable records are the Swift peer the stack is measured against.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The in-memory store: persistent hash tries, so a reader's copy of the state costs a save little.
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Raw DEFLATE: Core Data's SQLite store keeps its model cache (Z_MODELCACHE) compressed.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // SHA-256 and SHA-512 (OpenSSL's libcrypto): the digest and checksum Core Data keeps beside a store's version
        // hashes.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // The I/O recorder's C (the StackLabIOLog product): logs a process's writes and syncs under one folder.
        .target(name: "CIOLog"),
        // The engine comparison's raw engines in C: the same work as LabEngines' swift-direct Swift, the floor with no
        // Swift in it (only LabEngines links it).
        .target(name: "CRawEngines", dependencies: ["CSQLite", "CLMDB"]),
        .target(
            name: "ObjectStack",
            dependencies: [.product(name: "HashTreeCollections", package: "swift-collections")]
        ),
        .target(name: "ObjectStackSQLite", dependencies: ["ObjectStack", "CSQLite", "CZlib", "CCrypto"]),
        .target(name: "ObjectStackLMDB", dependencies: ["ObjectStack", "CLMDB"]),
        // The lab core, the engine alone: scenarios, metrics, the runner, compare, output, reports. It knows
        // workloads, stores and strategies only through their declarations, imports no ObjectStack and serves nothing.
        .target(
            name: "LabCore",
            dependencies: [
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // The workloads, the stores and the concurrency strategies they run on; the pods and model-data web services
        // (FlyingFox); startup, seeding, explain.
        .target(
            name: "LabWorkloads",
            dependencies: [
                "LabCore", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB",
                .product(name: "FlyingFox", package: "FlyingFox"),
            ]
        ),
        // The engine comparison: ObjectStack against the engines' C APIs and GRDB. The only target that links
        // CSQLite and CLMDB itself and GRDB; only stacklab-bench links it.
        .target(
            name: "LabEngines",
            dependencies: [
                "LabCore", "LabWorkloads", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "CSQLite", "CLMDB",
                "CRawEngines", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Reliability tools: the fuzzer, the crash (kill) campaign and the child processes they and the tests start.
        .target(
            name: "LabReliability",
            dependencies: ["LabCore", "LabWorkloads", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB"]
        ),
        // The lab's verbs, shared by both executables: each tool names its workloads, so a verb's code is written once.
        .target(
            name: "LabCommands",
            dependencies: [
                "LabCore", "LabWorkloads", "LabReliability", "ObjectStack",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "stacklab", dependencies: ["LabCommands", "LabWorkloads"]),
        .executableTarget(name: "stacklab-bench", dependencies: ["LabCommands", "LabEngines", "LabWorkloads"]),
        // What the test targets share: temporary stacks, one seeded generator, the shared models, the executables.
        .target(
            name: "TestSupport",
            dependencies: ["ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "CSQLite"],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "ObjectStackTests", dependencies: ["ObjectStack", "TestSupport"]),
        .testTarget(
            name: "ObjectStackSQLiteTests", dependencies: ["ObjectStack", "ObjectStackSQLite", "CSQLite", "TestSupport"]),
        .testTarget(name: "ObjectStackLMDBTests", dependencies: ["ObjectStack", "ObjectStackLMDB", "CLMDB"]),
        // One conformance suite, parameterised over every store kind.
        .testTarget(
            name: "StoreConformanceTests",
            // CSQLite: the hostile-file tests edit a store's schema by hand.
            dependencies: ["ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "CSQLite", "TestSupport"]
        ),
        // LabCore alone: nothing of ObjectStack, no workload, no test helper that links them.
        .testTarget(name: "LabCoreTests", dependencies: ["LabCore"], exclude: ["Fixtures"]),
        .testTarget(
            name: "LabWorkloadsTests",
            dependencies: ["LabWorkloads", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "TestSupport"]
        ),
        .testTarget(
            name: "LabEnginesTests",
            dependencies: [
                "LabEngines", "LabWorkloads", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "TestSupport",
                "CRawEngines",
            ]
        ),
        .testTarget(
            name: "LabReliabilityTests",
            dependencies: ["LabReliability", "LabWorkloads", "ObjectStack", "ObjectStackSQLite", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        // The command line through the built executables: golden output, exit statuses, the committed results.
        .testTarget(
            name: "LabCommandsTests",
            dependencies: ["LabCore", "LabWorkloads", "TestSupport", "stacklab", "stacklab-bench"],
            exclude: ["Fixtures", "Golden"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
