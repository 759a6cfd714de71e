import Foundation

/// A file operation that failed, said in one line: what was attempted, on which path, and
/// why (`cannot write 'Generated/Chat.generated.swift': permission denied`), instead of a
/// Foundation error dump.
public struct FileSystemError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var path: String
    public var reason: String

    public init(_ operation: String, path: String, reason: String) {
        self.operation = operation
        self.path = path
        self.reason = reason
    }

    public var description: String { "cannot \(operation) '\(path)': \(reason)" }

    /// Runs `body`, turning any error it throws into a `FileSystemError` for `path`.
    public static func attempt<T>(_ operation: String, path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FileSystemError {
            throw error
        } catch {
            throw FileSystemError(operation, path: path, reason: reason(for: error))
        }
    }

    /// The POSIX reason behind a Foundation error when there is one ("permission denied").
    static func reason(for error: any Error) -> String {
        let nsError = error as NSError
        var candidates: [NSError] = [nsError]
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError { candidates.insert(underlying, at: 0) }
        for candidate in candidates where candidate.domain == NSPOSIXErrorDomain {
            if let text = strerror(Int32(candidate.code)) { return String(cString: text).lowercased() }
        }
        switch nsError.code {
        case NSFileWriteNoPermissionError, NSFileReadNoPermissionError: return "permission denied"
        case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return "no such file or directory"
        case NSFileWriteOutOfSpaceError: return "no space left on device"
        case NSFileWriteVolumeReadOnlyError: return "read-only file system"
        case NSFileWriteFileExistsError: return "a file is in the way"
        default: return nsError.localizedDescription
        }
    }
}
