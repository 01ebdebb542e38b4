; Scala definitions. Package clauses prefix qualified names; `object`s are classes (their
; functions are methods). `val`s with a capitalised name in an object or at the top level are
; constants (the Scala naming convention for constants).

(package_clause
  name: (package_identifier) @name) @package

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.class

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(type_definition
  name: (type_identifier) @name) @definition.type

(object_definition
  body: (template_body
    (val_definition
      pattern: (identifier) @name
      (#match? @name "^[A-Z]")) @definition.constant))
(compilation_unit
  (val_definition
    pattern: (identifier) @name
    (#match? @name "^[A-Z]")) @definition.constant)

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(class_parameter
  name: (identifier) @name) @definition.field
(template_body
  [(val_definition pattern: (identifier) @name) (var_definition pattern: (identifier) @name)] @definition.field)
(simple_enum_case
  name: (identifier) @name) @definition.variant
(full_enum_case
  name: (identifier) @name) @definition.variant

; A file's variables (indexer.types.DATA_KINDS), after its constants, which take precedence.
(compilation_unit
  [(val_definition pattern: (identifier) @name) (var_definition pattern: (identifier) @name)] @definition.variable)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
(block_comment) @doc
