; Go imports: one per import spec, the path without quotes (`net/http`, `github.com/x/y`).

(import_spec
  path: (_) @module) @import
