import Foundation
import SchemaGenCore

/// Dispatches the subcommands. Argument parsing is hand-written: the tool has no
/// dependencies, so the build plugin that runs it builds in seconds.
enum SchemaGenCommand {
    static let version = "0.1.0"

    static let usage = """
        OVERVIEW: Compile SchemaGen schema files (*.schema, *.schema.json) into Swift.

        USAGE: schemagen <command> [options]

        COMMANDS:
          generate --output <dir> <path>...     Generate Swift into <dir>: <name>.generated.swift per schema file,
                                                and <name>+<Entity>.generated.swift per entity.
                                                Paths are schema files or directories searched recursively.
                                                Only files whose content changed are rewritten.
              --keep-stale                      Keep generated files whose schema file is gone.
              --quiet                           Print diagnostics only.
              --schema-name <Name>              Name the generated type listing the target's entities for a
                                                store (default: the output folder's name + 'Schema', so
                                                Generated/ChatModels gets ChatModelsSchema, as the plugin does).
              --full-source-paths               Name schema files by the paths given in #sourceLocation
                                                directives (default: file names, so output does not depend
                                                on where it is generated). The build plugin passes absolute
                                                paths with this flag, so compiler errors link to the schema.
              --entity-files <name/name/...>    Give only the entities whose file is named here a file of their
                                                own ('/'-separated; empty for none); the others go into their
                                                schema file's file, and named files no entity fills get a note.
                                                The build plugin passes the files it declared to SwiftPM.
          check --generated <dir> <path>...     Exit 1 with a diff if <dir> is not what 'generate' would write.
              --schema-name <Name>              As for 'generate' (default from <dir>).
          convert <file> [--to dsl|json] [--output <file>]
                                                Convert a schema between the DSL and JSON syntaxes
                                                (default: to the other syntax, printed to standard output).
          convert --from swiftletmodel <file.swift>... --output <dir> [--no-updated-at] [--no-soft-delete]
                                                Write schema files for SwiftletModel models (@EntityModel
                                                structs), and beside each a <name>+Kept.swift with the code a
                                                schema cannot hold. Nothing is written if a model cannot be
                                                converted. Every entity gets 'metadata updatedAt, softDelete'
                                                (as SwiftletModel behaves); the flags leave either out.
          migrate-plan --store <file> <path>... Print the migration a store file written with an older schema
                                                needs to follow the schema files at <path>, without changing it.
                                                Exit 1 if some change needs a migration closure or a default.
          diff <old> <new>                      Print the migration plan between two schema files or directories.
          json-schema                           Print the JSON Schema of the *.schema.json syntax (for editors).
          version                               Print the version.

        OPTIONS:
          -h, --help                            Show this help.
          --version                             Print the version.

        Diagnostics are printed as 'path:line:column: error: message', followed by a 'note:' hint.
        """

    /// `--schema-name`, or the name the build plugin would give a target named like `folder`.
    static func schemaName(_ arguments: ParsedArguments, folder: String) -> String {
        arguments.options["--schema-name"] ?? SchemaGenerator.schemaName(forTarget: URL(fileURLWithPath: folder).lastPathComponent)
    }

    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            printError(usage)
            return 64
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch command {
            case "generate": return try GenerateCommand.run(try ParsedArguments(rest, options: ["--output", "--schema-name", "--entity-files"], flags: ["--quiet", "--keep-stale", "--full-source-paths"]))
            case "check": return try CheckCommand.run(try ParsedArguments(rest, options: ["--generated", "--schema-name"], flags: []))
            case "convert": return try ConvertCommand.run(try ParsedArguments(rest, options: ["--to", "--output", "--from"], flags: ["--no-updated-at", "--no-soft-delete"]))
            case "migrate-plan": return try MigratePlanCommand.runMigratePlan(try ParsedArguments(rest, options: ["--store"], flags: []))
            case "diff": return try MigratePlanCommand.runDiff(try ParsedArguments(rest, options: [], flags: []))
            case "json-schema":
                print(SchemaFileFormat.jsonSchema)
                return 0
            case "version", "--version":
                print("schemagen \(version)")
                return 0
            case "-h", "--help", "help":
                print(usage)
                return 0
            default:
                printError("error: unknown command '\(command)'\n\n\(usage)")
                return 64
            }
        } catch let error as UsageError {
            printError("error: \(error.message)\nRun 'schemagen --help' for usage.")
            return 64
        } catch let error as SchemaEncodingCheck.Failure {
            // Located diagnostics, printed as the generator prints the others.
            printError(error.description)
            return 1
        } catch let error as FileSystemError {
            printError("schemagen: error: \(error)")
            return 1
        } catch {
            printError("schemagen: error: \(error)")
            return 1
        }
    }

    static func printError(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Whether to print code frames: on a terminal, or when `SCHEMAGEN_CODE_FRAMES=1`.
    static var showsCodeFrames: Bool {
        if let setting = ProcessInfo.processInfo.environment["SCHEMAGEN_CODE_FRAMES"] { return setting == "1" }
        return isatty(STDERR_FILENO) == 1
    }

    /// Prints diagnostics to standard error in compiler format; on a terminal, each error
    /// is followed by the schema line it points at and a caret.
    static func report(_ diagnostics: [Diagnostic], sources: [SchemaSource] = []) {
        let frames = showsCodeFrames
        let texts = Dictionary(sources.map { ($0.path, $0.text) }, uniquingKeysWith: { first, _ in first })
        for diagnostic in diagnostics {
            var text = "\(diagnostic.location): \(diagnostic.severity.rawValue): \(diagnostic.message)"
            if frames, let source = texts[diagnostic.location.path], let frame = CodeFrame.render(at: diagnostic.location, in: source) {
                text += "\n" + frame
            }
            if let hint = diagnostic.hint { text += "\n\(diagnostic.location): note: \(hint)" }
            printError(text)
        }
        let errors = diagnostics.filter { $0.severity == .error }.count
        if errors > 0 { printError("schemagen: \(errors) error\(errors == 1 ? "" : "s"); no files were written") }
    }
}

struct UsageError: Error {
    var message: String
}

/// Options (`--output dir`), flags (`--quiet`) and positional arguments.
struct ParsedArguments {
    var options: [String: String] = [:]
    var flags: Set<String> = []
    var positional: [String] = []

    init(_ arguments: [String], options allowedOptions: Set<String>, flags allowedFlags: Set<String>) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if allowedOptions.contains(argument) {
                guard index + 1 < arguments.count else { throw UsageError(message: "\(argument) needs a value") }
                options[argument] = arguments[index + 1]
                index += 2
            } else if allowedFlags.contains(argument) {
                flags.insert(argument)
                index += 1
            } else if argument.hasPrefix("--") {
                throw UsageError(message: "unknown option '\(argument)'")
            } else {
                positional.append(argument)
                index += 1
            }
        }
    }

    func required(_ option: String) throws -> String {
        guard let value = options[option] else { throw UsageError(message: "missing \(option) <value>") }
        return value
    }
}
