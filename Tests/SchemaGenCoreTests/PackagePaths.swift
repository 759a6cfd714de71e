import Foundation

/// Paths inside this package, found from this file's location.
enum PackagePaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    static func text(_ relative: String) throws -> String {
        String(decoding: try Data(contentsOf: url(relative)), as: UTF8.self)
    }
}
