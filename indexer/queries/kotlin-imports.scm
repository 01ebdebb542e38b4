; Kotlin imports: the imported name (`kotlinx.coroutines.delay`; `a.b` for `a.b.*`).

(import_header
  (identifier) @module) @import
