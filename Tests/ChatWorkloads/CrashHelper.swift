import Foundation

/// The `store-crash-helper` executable the process tests start as children: built by
/// SwiftPM next to the test bundle, so found by walking up from it.
public enum CrashHelper {
    public static let url: URL = {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("store-crash-helper").path),
              directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("store-crash-helper")
    }()

    /// Starts the helper with `arguments`, its input `input`.
    public static func start(_ arguments: [String], input: Pipe? = nil) throws -> HelperProcess {
        try HelperProcess(url, arguments, input: input)
    }
}
