import Foundation

/// Finds schema files among paths given on the command line or by a plugin.
public enum SchemaFileCollector {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }


    /// Every `*.schema` / `*.schema.json` file named in `paths` or found (recursively) under
    /// a directory in `paths`, sorted by path so output never depends on directory order.
    public static func collect(_ paths: [String]) throws -> [String] {
        let fileManager = FileManager.default
        var files: Set<String> = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw Failure(description: "no such file or directory: \(path)")
            }
            if isDirectory.boolValue {
                guard let enumerator = fileManager.enumerator(atPath: path) else { continue }
                for case let relative as String in enumerator where SchemaSource.isSchemaFile(relative) {
                    files.insert((path as NSString).appendingPathComponent(relative))
                }
            } else {
                guard SchemaSource.isSchemaFile(path) else {
                    throw Failure(description: "\(path) is not a schema file (expected *.schema or *.schema.json)")
                }
                files.insert(path)
            }
        }
        return files.sorted()
    }

    /// Reads the files as UTF-8 schema sources. A file that cannot be read, or is not UTF-8
    /// text, is an error naming it: decoding it with replacement characters would report
    /// confusing problems, or none.
    public static func read(_ paths: [String]) throws -> [SchemaSource] {
        try paths.map { path in
            let data = try FileSystemError.attempt("read", path: path) { try Data(contentsOf: URL(fileURLWithPath: path)) }
            guard let text = String(data: data, encoding: .utf8) else {
                throw FileSystemError("read", path: path, reason: "it is not UTF-8 text")
            }
            return SchemaSource(path: path, text: text)
        }
    }
}
