; Java imports: the imported name as written (`java.util.List`, `java.util` for `java.util.*`,
; `java.util.Objects.requireNonNull` for a static import).

(import_declaration
  [(scoped_identifier) (identifier)] @module) @import
