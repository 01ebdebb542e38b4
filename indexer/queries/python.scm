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

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
; Class attributes (`x: int = 0`, `x = 0` in a class body) and the attributes `__init__` sets on
; `self` (qualified by the class, see indexer/symbols.py).
(class_definition
  body: (block
    [(assignment left: (identifier) @name)
     (expression_statement (assignment left: (identifier) @name))] @definition.field))
(class_definition
  body: (block
    (function_definition
      name: (identifier) @_init
      body: (block
        [(assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name))
         (expression_statement
           (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)))]
          @definition.field))
    (#eq? @_init "__init__")
    (#eq? @_self "self")))

; A file's variables (indexer.types.DATA_KINDS), after its constants, which take precedence.
(module
  [(assignment left: (identifier) @name)
   (expression_statement (assignment left: (identifier) @name))] @definition.variable)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
