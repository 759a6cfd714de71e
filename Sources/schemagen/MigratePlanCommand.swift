import Foundation
import SchemaEvolution
import SchemaGenCore

/// `schemagen migrate-plan --store <file> <path>...` and `schemagen diff <old> <new>`: the
/// migration plan from a store file's schema, or from one set of schema files, to another
/// set, as a store opening the file would compute it. Exit status 1 when the plan has
/// problems (changes an app must resolve with a migration or a default), 0 otherwise.
enum MigratePlanCommand {
    static func runMigratePlan(_ arguments: ParsedArguments) throws -> Int32 {
        let store = try arguments.required("--store")
        guard !arguments.positional.isEmpty else { throw UsageError(message: "migrate-plan needs the schema files or directories to compare with") }
        let old: SchemaShape
        do {
            old = try StoreShapeReader.shape(at: store)
        } catch let failure as StoreShapeReader.Failure {
            SchemaGenCommand.printError("schemagen: error: \(failure)")
            return 1
        }
        guard let new = try shape(of: arguments.positional) else { return 1 }
        return report(MigrationPlanner.plan(from: old, to: new))
    }

    static func runDiff(_ arguments: ParsedArguments) throws -> Int32 {
        guard arguments.positional.count == 2 else { throw UsageError(message: "diff takes two schema files or directories: the old and the new") }
        guard let old = try shape(of: [arguments.positional[0]]), let new = try shape(of: [arguments.positional[1]]) else { return 1 }
        return report(MigrationPlanner.plan(from: old, to: new))
    }

    /// The shape of the schema files under `paths`, or nil after printing their errors.
    private static func shape(of paths: [String]) throws -> SchemaShape? {
        let sources = try SchemaFileCollector.read(try SchemaFileCollector.collect(paths))
        let (shape, diagnostics) = SchemaGenerator.shape(sources)
        SchemaGenCommand.report(diagnostics, sources: sources)
        return shape
    }

    private static func report(_ plan: MigrationPlan) -> Int32 {
        print(plan.description)
        if plan.deletesData { print("note: the steps marked '-' delete stored data") }
        return plan.problems.isEmpty ? 0 : 1
    }
}
