// The schema shape and migration types are part of this module's API: generated code
// declares `<Target>Schema.shape` with them, and stores report migration plans in them.
@_exported import SchemaEvolution
