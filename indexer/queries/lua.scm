; Lua definitions. `function M.foo()` is `M.foo` (a function of the module table M), `function
; M:bar()` the method `M.bar`; `local function f()`, `f = function() end` and `M.f = function()
; end` are functions too. A table at file level that holds functions (`local M = { f = function()
; end }`, `M.config = {...}`) is a module, and the functions in it are qualified by it.

(function_declaration
  name: (method_index_expression
    table: (_) @qualifier
    method: (identifier) @name)) @definition.method

(function_declaration
  name: [(identifier) (dot_index_expression)] @name) @definition.function

; `local f = function() end`, `local M = { ... }` (the whole `local` statement is the span).
(variable_declaration
  (assignment_statement
    (variable_list
      .
      name: (identifier) @name)
    (expression_list
      .
      value: (function_definition)))) @definition.function

; `f = function() end`, `M.f = function() end` (as statements: not the `local` ones above again).
(chunk
  (assignment_statement
    (variable_list
      .
      name: [(identifier) (dot_index_expression)] @name)
    (expression_list
      .
      value: (function_definition))) @definition.function)
(block
  (assignment_statement
    (variable_list
      .
      name: [(identifier) (dot_index_expression)] @name)
    (expression_list
      .
      value: (function_definition))) @definition.function)

; File-level tables of functions.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list
        .
        name: (identifier) @name)
      (expression_list
        .
        value: (table_constructor
          (field value: (function_definition)))))) @definition.module)
(chunk
  (assignment_statement
    (variable_list
      .
      name: [(identifier) (dot_index_expression)] @name)
    (expression_list
      .
      value: (table_constructor
        (field value: (function_definition))))) @definition.module)

; `name = function() end` fields of a table constructor.
(field
  name: (identifier) @name
  value: (function_definition)) @definition.function

; File-level constants: `local MAX_SIZE = 10`.
(chunk
  (variable_declaration
    (assignment_statement
      (variable_list
        .
        name: (identifier) @name
        (#match? @name "^_*[A-Z][A-Z0-9_]+$")))) @definition.constant)

; Comments that may document the definition below them (see indexer/symbols.py).
(comment) @doc
