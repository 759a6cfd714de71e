// swift-tools-version:6.2
import PackageDescription

// The generator is compiled without optimization even in release builds: it runs in
// milliseconds either way (0.09 s for 200 entities unoptimized), while optimizing it took
// 30 s per compile, and SwiftPM compiles a build plugin's tool up to three times in a
// release build (docs/Performance.md, "Build times"). Tools version 6.2 is the first whose
// SwiftPM accepts such a flag in a package used as a dependency.
let generatorSettings: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]

/// The schema versions of the evolution tests (Tests/EvolutionLadder).
let ladderVersions = ["V1", "V2", "V3", "V4", "V5", "V6"]

let nonApplePlatforms: [Platform] = [.linux, .android, .windows, .openbsd, .wasi]

let package = Package(
    name: "SchemaGen",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "SchemaRuntime", targets: ["SchemaRuntime"]),
        .library(name: "SchemaStore", targets: ["SchemaStore"]),
        // PostgreSQL through libpq: its own product, so apps that never talk to a server do not link it.
        .library(name: "SchemaStorePostgres", targets: ["SchemaStorePostgres"]),
        .executable(name: "schemagen", targets: ["schemagen"]),
        .plugin(name: "SchemaGenPlugin", targets: ["SchemaGenPlugin"]),
        .plugin(name: "GenerateSchemaCode", targets: ["GenerateSchemaCode"]),
    ],
    targets: [
        // Runtime that generated code runs on: context, relations, queries.
        .target(name: "SchemaRuntime", dependencies: ["SchemaEvolution"]),

        // What a store keeps of a schema (its shape) and the migration plan between two
        // shapes: shared by the runtime, the store and the CLI, and free of dependencies.
        .target(name: "SchemaEvolution"),

        // Persistence on SQLite: the SDK's SQLite3 module on Apple platforms, the system
        // library elsewhere. Apps that only use the in-memory runtime never link it.
        .target(
            name: "SchemaStore",
            dependencies: ["SchemaRuntime", .target(name: "CSQLite", condition: .when(platforms: nonApplePlatforms))]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // PostgreSQL's C client, libpq, as a system library (docs/PostgreSQL.md).
        .target(name: "SchemaStorePostgres", dependencies: ["SchemaStore", "CLibPQ"]),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),

        // The generator pipeline: parse, validate, translate, render. Shared by the CLI and tests.
        .target(name: "SchemaGenCore", dependencies: ["SchemaEvolution"], swiftSettings: generatorSettings),

        // A reproducible random number generator for the randomized tests and the benchmark.
        .target(name: "DeterministicRandom"),

        // Thin command-line front end over SchemaGenCore.
        // SQLite only to read a store file's recorded schema (`schemagen migrate-plan`).
        .executableTarget(
            name: "schemagen",
            dependencies: ["SchemaGenCore", "SchemaEvolution", .target(name: "CSQLite", condition: .when(platforms: nonApplePlatforms))],
            swiftSettings: generatorSettings
        ),

        // Build-tool plugin: compiles the *.schema / *.schema.json files of a target at build time.
        .plugin(
            name: "SchemaGenPlugin",
            capability: .buildTool(),
            dependencies: ["schemagen"]
        ),

        // Command plugin: writes the same generated code into Generated/ for review.
        .plugin(
            name: "GenerateSchemaCode",
            capability: .command(
                intent: .custom(verb: "generate-schema-code", description: "Write generated schema code into Generated/"),
                permissions: [.writeToPackageDirectory(reason: "Writes generated Swift code into Generated/")]
            ),
            dependencies: ["schemagen"]
        ),

        // Example domains: the schema files are compiled by the build plugin.
        .target(
            name: "ChatModels",
            dependencies: ["SchemaRuntime"],
            path: "Schemas/Chat",
            plugins: ["SchemaGenPlugin"]
        ),
        .target(
            name: "CatalogModels",
            dependencies: ["SchemaRuntime"],
            path: "Schemas/Catalog",
            plugins: ["SchemaGenPlugin"]
        ),
        .executableTarget(name: "schemagen-example", dependencies: ["ChatModels", "CatalogModels", "SchemaRuntime", "SchemaStore"], path: "Examples/schemagen-example"),
        .executableTarget(name: "schemagen-bench", dependencies: ["BenchModels", "DeterministicRandom", "SchemaRuntime"], path: "Benchmarks/schemagen-bench"),
        .executableTarget(
            name: "schemastore-bench",
            dependencies: ["BenchModels", "ChatModels", "DeterministicRandom", "SchemaRuntime", "SchemaStore", "SchemaStorePostgres", "PostgresTestSupport",
                           .target(name: "CSQLite", condition: .when(platforms: nonApplePlatforms))],
            path: "Benchmarks/schemastore-bench"
        ),
        .target(name: "BenchModels", dependencies: ["SchemaRuntime"], path: "Benchmarks/BenchModels", plugins: ["SchemaGenPlugin"]),

        .testTarget(name: "SchemaRuntimeTests", dependencies: ["SchemaRuntime", "ChatModels", "CatalogModels", "DeterministicRandom"]),
        .testTarget(name: "SchemaEvolutionTests", dependencies: ["SchemaEvolution"]),
        .testTarget(name: "SchemaGenCoreTests", dependencies: ["SchemaGenCore", "DeterministicRandom"], exclude: ["Fixtures"]),
        // Applies the build plugin to AllConstructs.schema and uses the generated types.
        .testTarget(name: "GeneratedCodeTests", dependencies: ["SchemaRuntime", "SchemaStore", "DeterministicRandom"], plugins: ["SchemaGenPlugin"]),
        .testTarget(name: "EndToEndTests", dependencies: []),
        .testTarget(name: "SchemaStoreTests", dependencies: ["SchemaStore", "ChatModels", "ChatWorkloads", "CatalogModels", "DeterministicRandom"]),
        .testTarget(name: "SchemaStorePostgresTests", dependencies: ["SchemaStore", "SchemaStorePostgres", "PostgresTestSupport", "ChatModels", "ChatWorkloads", "DeterministicRandom"]),
        // A throwaway PostgreSQL cluster for the tests that need a server (docs/PostgreSQL.md).
        .target(name: "PostgresTestSupport", dependencies: ["SchemaStorePostgres"], path: "Tests/PostgresTestSupport"),
        // Random writes to a chat graph, shared by the tests and their child processes.
        .target(name: "ChatWorkloads", dependencies: ["SchemaRuntime", "SchemaStore", "ChatModels", "DeterministicRandom"], path: "Tests/ChatWorkloads"),
        // Six versions of one schema, each compiled by the plugin into its own module: the
        // evolution tests open one store file with each in turn.
        .testTarget(
            name: "SchemaEvolutionLadderTests",
            dependencies: ["SchemaStore", "SchemaStorePostgres", "PostgresTestSupport"] + ladderVersions.map { .target(name: "Ladder\($0)") }
        ),
        // Commits numbered writes until killed, to a file or to PostgreSQL: the crash-safety
        // and multi-process tests' child process.
        .executableTarget(name: "store-crash-helper", dependencies: ["SchemaStore", "SchemaStorePostgres", "ChatModels", "ChatWorkloads", "DeterministicRandom"],
                          path: "Tests/StoreCrashHelper"),
    ],
    swiftLanguageModes: [.v6]
)

package.targets += ladderVersions.map { version in
    .target(name: "Ladder\(version)", dependencies: ["SchemaRuntime"], path: "Tests/EvolutionLadder/\(version)", plugins: ["SchemaGenPlugin"])
}
