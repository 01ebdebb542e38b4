; Python imports: `import a.b`, `import a as b`, `from .x import y` (module `.x`),
; `from __future__ import ...`, and importlib.import_module("x") / __import__("x") with a literal.

(import_statement
  name: [
    (dotted_name) @module
    (aliased_import name: (dotted_name) @module)
  ]) @import

(import_from_statement
  module_name: [(dotted_name) (relative_import)] @module) @import

(future_import_statement
  "__future__" @module) @import

(call
  function: [
    (identifier) @_function
    (attribute attribute: (identifier) @_function)
  ]
  arguments: (argument_list
    .
    (string (string_content) @module))
  (#any-of? @_function "import_module" "__import__")) @import
