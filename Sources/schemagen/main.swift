import Foundation
import SchemaGenCore

/// `schemagen`: compiles schema files into Swift. See `schemagen --help`.
let arguments = Array(CommandLine.arguments.dropFirst())
let status = SchemaGenCommand.run(arguments)
exit(status)
