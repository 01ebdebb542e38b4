; TypeScript imports (tsx-imports.scm is the same file): `import ... from "x"`,
; `export ... from "x"`, `import x = require("x")`, require("x") and import("x") with a literal.

(import_statement
  source: (string) @module) @import

(import_statement
  (import_require_clause
    source: (string) @module)) @import

(export_statement
  source: (string) @module) @import

(call_expression
  function: (identifier) @_require
  arguments: (arguments
    .
    (string) @module)
  (#eq? @_require "require")) @import

(call_expression
  function: (import)
  arguments: (arguments
    .
    (string) @module)) @import
