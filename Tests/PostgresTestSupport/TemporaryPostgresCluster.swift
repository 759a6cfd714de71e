import Foundation
import SchemaStorePostgres

/// A throwaway PostgreSQL cluster for the tests: `initdb` in a temporary folder, a server on
/// a Unix socket in that folder (no TCP port), trust authentication, stopped and removed at
/// the end. As root (CI), the server runs as the `postgres` user, since PostgreSQL refuses
/// to run as root.
///
/// Without PostgreSQL's server programs, `start()` returns nil and the tests say how to get
/// them; under CI (`CI=true`) that is a failure instead (docs/PostgreSQL.md).
public final class TemporaryPostgresCluster {
    public static let missingServer = "PostgreSQL tests skipped: no PostgreSQL server programs (initdb, pg_ctl). Install them (Debian: apt-get install postgresql libpq-dev) and run swift test again; see docs/PostgreSQL.md."

    public let folder: URL
    public let binaries: URL
    public let user = "schemagen"
    /// The server's port: its socket's name, and its TCP port on 127.0.0.1 when it listens there.
    public let port: Int
    /// Whether the server also listens on 127.0.0.1 (``start(loopbackPort:)``).
    public let listensOnLoopback: Bool
    private let asPostgres: Bool

    public var socketFolder: String { folder.path }
    var data: String { folder.appendingPathComponent("data").path }

    /// The server programs' folder: Debian's versioned folder, else PATH.
    static func serverBinaries() -> URL? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: >) {
            let folder = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("pg_ctl").path) { return folder }
        }
        for path in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let folder = URL(fileURLWithPath: String(path))
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("pg_ctl").path) { return folder }
        }
        return nil
    }

    /// A started cluster, or nil when this machine has no PostgreSQL server programs. With
    /// `loopbackPort`, the server also listens on 127.0.0.1 at that port (benchmarks that
    /// put a network's delay between client and server); else on its socket only.
    public static func start(loopbackPort: Int? = nil) throws -> TemporaryPostgresCluster? {
        guard let binaries = serverBinaries() else { return nil }
        let cluster = try TemporaryPostgresCluster(binaries: binaries, port: loopbackPort ?? 5432, listensOnLoopback: loopbackPort != nil)
        try cluster.run("initdb", ["-D", cluster.data, "-A", "trust", "-U", cluster.user, "-E", "UTF8", "--locale=C", "--no-sync"])
        try cluster.startServer()
        return cluster
    }

    /// Starts the server (again, after ``stopServer()``). Without flushing to disk
    /// (`fsync=off`): the data is thrown away anyway. `SCHEMAGEN_PG_SETTINGS` adds settings
    /// after that one, separated by spaces (`fsync=on commit_delay=1000`, for benchmarks
    /// of what a durable server costs).
    public func startServer() throws {
        let settings = (ProcessInfo.processInfo.environment["SCHEMAGEN_PG_SETTINGS"] ?? "").split(separator: " ").map { " -c \($0)" }.joined()
        try run("pg_ctl", ["-D", data, "-w", "-s", "-l", folder.appendingPathComponent("server.log").path,
                           "-o", "-k \(socketFolder) -p \(port) -c listen_addresses='\(listensOnLoopback ? "127.0.0.1" : "")' -c fsync=off\(settings)", "start"])
    }

    /// Stops the server at once, dropping every connection (the data stays).
    public func stopServer() throws {
        try run("pg_ctl", ["-D", data, "-w", "-s", "-m", "fast", "stop"])
    }

    /// Stops the server's log writer (SIGSTOP) until ``crashServer()``: a commit that does
    /// not wait for its flush then stays in the server's memory, which the crash loses (the
    /// log writer would write it within `wal_writer_delay`, or as soon as a page of the log
    /// is full).
    public func pauseLogWriter() throws {
        let admin = try PostgresConnection(configuration())
        defer { admin.close() }
        guard case .integer(let pid)? = try admin.execute("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'").first?.first else {
            throw Failure(description: "no log writer")
        }
        kill(pid_t(pid), SIGSTOP)
        pausedLogWriter = pid_t(pid)
    }

    private var pausedLogWriter: pid_t?

    /// Crashes the server as a failing server process would: SIGKILL to one of its
    /// processes (the paused log writer, else a connection's), after which PostgreSQL ends
    /// every connection and recovers from its log, losing what was not written there yet.
    /// Returns once the server accepts connections again.
    public func crashServer() throws {
        let victim = try PostgresConnection(configuration())
        // A row of an unlogged table, which recovery empties (or the table, if its creation
        // is lost too): how the server is known to have recovered, rather than not to have
        // noticed the crash yet. Committed without a flush, which would write what the
        // caller's crash is meant to lose.
        try victim.execute("SET synchronous_commit = off")
        try victim.execute("CREATE UNLOGGED TABLE IF NOT EXISTS crash_marker (k integer)")
        try victim.execute("INSERT INTO crash_marker VALUES (1)")
        guard case .integer(let pid)? = try victim.execute("SELECT pg_backend_pid()").first?.first else { throw Failure(description: "no backend pid") }
        kill(pausedLogWriter ?? pid_t(pid), SIGKILL)
        pausedLogWriter = nil
        victim.close()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            // While it recovers, the server refuses connections.
            if let connection = try? PostgresConnection(configuration()) {
                defer { connection.close() }
                if case .null? = (try? connection.execute("SELECT to_regclass('crash_marker')"))?.first?.first { return }
                if case .integer(0)? = (try? connection.execute("SELECT count(*) FROM crash_marker"))?.first?.first { return }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Failure(description: "the server did not recover from the crash within 30 s")
    }

    private init(binaries: URL, port: Int, listensOnLoopback: Bool) throws {
        self.binaries = binaries
        self.port = port
        self.listensOnLoopback = listensOnLoopback
        // Short: a Unix socket path must fit in about 100 bytes.
        folder = URL(fileURLWithPath: "/tmp/pg-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        asPostgres = getuid() == 0
        if asPostgres { try Self.shell("/bin/chown", ["postgres:postgres", folder.path]) }
    }

    public func configuration(database: String = "postgres") -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(host: listensOnLoopback ? "127.0.0.1" : socketFolder, port: port, database: database, user: user)
    }

    /// A new, empty database on the cluster.
    public func createDatabase(_ name: String) throws -> PostgresConnection.Configuration {
        let admin = try PostgresConnection(configuration())
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \"\(name)\"")
        return configuration(database: name)
    }

    /// A new database owned, with its `public` schema, by a new role `role` (no superuser),
    /// in which EXECUTE on `function` (its signature) is revoked from PUBLIC: for a store
    /// whose role may not run it. Its configuration connects as `role`.
    public func createDatabase(_ name: String, ownedByNewRole role: String, revoking function: String) throws -> PostgresConnection.Configuration {
        var configuration = try createDatabase(name)
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        // The test's own names: DDL takes no parameters.
        for sql in ["CREATE ROLE \"\(role)\" LOGIN", "ALTER DATABASE \"\(name)\" OWNER TO \"\(role)\"", "ALTER SCHEMA public OWNER TO \"\(role)\"",
                    "REVOKE EXECUTE ON FUNCTION \(function) FROM PUBLIC"] {
            try admin.execute(sql)
        }
        configuration.user = role
        return configuration
    }

    /// Adds a role that must give `password` (SCRAM) to connect; every other role still
    /// connects without one.
    public func addRole(_ role: String, password: String) throws {
        let admin = try PostgresConnection(configuration())
        defer { admin.close() }
        // CREATE ROLE takes no parameters; the test's own literals, quoted.
        try admin.execute("CREATE ROLE \"\(role)\" LOGIN PASSWORD '\(password.replacingOccurrences(of: "'", with: "''"))'")
        guard case .text(let hbaFile)? = try admin.execute("SHOW hba_file").first?.first else { throw Failure(description: "no hba_file") }
        // The first matching line decides: this one before initdb's "trust" lines.
        let rules = try String(contentsOfFile: hbaFile, encoding: .utf8)
        try ("local all \(role) scram-sha-256\n" + rules).write(toFile: hbaFile, atomically: false, encoding: .utf8)
        try admin.execute("SELECT pg_reload_conf()")
    }

    public func stop() {
        // A log writer a failed test left paused would never answer the server's request to stop.
        if let paused = pausedLogWriter { kill(paused, SIGCONT) }
        try? run("pg_ctl", ["-D", data, "-s", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    private func run(_ program: String, _ arguments: [String]) throws {
        let path = binaries.appendingPathComponent(program).path
        if asPostgres {
            try Self.shell("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
        } else {
            try Self.shell(path, arguments)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `path` and waits for it, its output in a file. Not `Process`: on Linux it waits
    /// for a descriptor that the server `pg_ctl` starts inherits, so it would wait for the
    /// server to stop.
    private static func shell(_ path: String, _ arguments: [String]) throws {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("pg-output-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw Failure(description: "cannot run \(path): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // Exited normally with status 0 (WIFEXITED and WEXITSTATUS, which Swift does not import).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(description: "\(path) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
    }
}
