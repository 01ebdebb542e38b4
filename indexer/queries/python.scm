; Python definitions. A function directly in a class body becomes a method (see indexer/symbols.py);
; the span starts at its decorators (the `decorated_definition` around it) and doc comment.

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(type_alias_statement
  left: (type (identifier) @name)) @definition.type

; Module-level UPPER_CASE assignments are constants.
(module
  (assignment
    left: (identifier) @name
    (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant)
(module
  (expression_statement
    (assignment
      left: (identifier) @name
      (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant))

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
