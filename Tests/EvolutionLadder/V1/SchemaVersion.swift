/// Which rung of the evolution ladder this module is (its schema is Library.schema).
public let schemaVersion = 1
