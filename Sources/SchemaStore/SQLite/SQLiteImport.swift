// Apple SDKs ship SQLite as the `SQLite3` module; elsewhere the `CSQLite` system-library
// target maps the system library (see Package.swift).
#if canImport(SQLite3)
@_exported import SQLite3
#else
@_exported import CSQLite
#endif
