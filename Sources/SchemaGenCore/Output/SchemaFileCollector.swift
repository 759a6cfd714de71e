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

    /// Reads the files as UTF-8 schema sources. A file that cannot be read is an error naming
    /// it; files that are not UTF-8 text throw ``SchemaEncodingCheck/Failure`` with the
    /// located error of each one's first invalid byte, all at once.
    public static func read(_ paths: [String]) throws -> [SchemaSource] {
        var sources: [SchemaSource] = [], problems: [Diagnostic] = []
        for path in paths {
            let data = try FileSystemError.attempt("read", path: path) { try Data(contentsOf: URL(fileURLWithPath: path)) }
            switch SchemaEncodingCheck.decode(data, path: path) {
            case .success(let text): sources.append(SchemaSource(path: path, text: text))
            case .failure(let problem): problems.append(problem)
            }
        }
        guard problems.isEmpty else { throw SchemaEncodingCheck.Failure(diagnostics: problems) }
        return sources
    }
}
