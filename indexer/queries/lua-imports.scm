; Lua imports: `require("a.b")` and `require "a.b"` with a string literal.

(function_call
  name: (identifier) @_fn
  arguments: (arguments
    .
    (string
      content: (string_content) @module))
  (#eq? @_fn "require")) @import
