; Python definitions. A function directly in a class body becomes a method (see indexer/symbols.py);
; the span is the def/class node itself, so decorators are not included.

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
