; JavaScript imports: `import ... from "x"`, `export ... from "x"`, require("x") and import("x")
; with a string literal.

(import_statement
  source: (string) @module) @import

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
