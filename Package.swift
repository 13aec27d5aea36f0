// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "StackLab",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ObjectStack", targets: ["ObjectStack"]),
        .library(name: "ObjectStackSQLite", targets: ["ObjectStackSQLite"]),
        .library(name: "ObjectStackLMDB", targets: ["ObjectStackLMDB"]),
        .library(name: "StackLab", targets: ["Lab"]),
        .executable(name: "stacklab", targets: ["stacklab"]),
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
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        .target(
            name: "ObjectStack",
            dependencies: [.product(name: "HashTreeCollections", package: "swift-collections")]
        ),
        .target(name: "ObjectStackSQLite", dependencies: ["ObjectStack", "CSQLite"]),
        .target(name: "ObjectStackLMDB", dependencies: ["ObjectStack", "CLMDB"]),
        // The lab core: scenarios, metrics, the runner, compare, output, reports, the pods web service. It knows
        // workloads only through the `Workload` protocol and imports no ObjectStack.
        .target(
            name: "LabCore",
            dependencies: [
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "FlyingFox", package: "FlyingFox"),
            ]
        ),
        // The workloads and the stack designs (strategies) on ObjectStack's three stores; startup, seeding, explain.
        .target(name: "StackLab", dependencies: ["LabCore", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB"]),
        // The engine comparison: ObjectStack against the engines' C APIs and GRDB. The only lab target that links
        // CSQLite, CLMDB and GRDB.
        .target(
            name: "LabEngines",
            dependencies: [
                "StackLab", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "CSQLite", "CLMDB",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Reliability tools: the fuzzer, the crash (kill) campaign and the child processes they and the tests start.
        .target(name: "LabReliability", dependencies: ["StackLab", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB"]),
        // The lab as one module for the command line: every lab target and the registry of every workload.
        .target(name: "Lab", dependencies: ["LabCore", "StackLab", "LabEngines", "LabReliability"]),
        .executableTarget(
            name: "stacklab",
            dependencies: [
                "Lab",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the test targets share: store kinds, temporary stacks, one seeded generator, the shared models.
        .target(
            name: "TestSupport",
            dependencies: ["ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB"],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "ObjectStackTests", dependencies: ["ObjectStack", "TestSupport"]),
        .testTarget(name: "ObjectStackSQLiteTests", dependencies: ["ObjectStack", "ObjectStackSQLite", "CSQLite"]),
        .testTarget(name: "ObjectStackLMDBTests", dependencies: ["ObjectStackLMDB", "CLMDB"]),
        .testTarget(name: "StackLabTests", dependencies: ["Lab", "ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "TestSupport"],
            exclude: ["Fixtures", "Golden"]),
        // One conformance suite, parameterised over every store kind.
        .testTarget(
            name: "StoreConformanceTests",
            // CSQLite: the hostile-file tests edit a store's schema by hand.
            dependencies: ["ObjectStack", "ObjectStackSQLite", "ObjectStackLMDB", "CSQLite", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
