; Kotlin definitions. The package header prefixes qualified names. `object` declarations are
; classes; a companion object is transparent (its functions are methods of the class). Only
; `const val` properties are reported.

(package_header
  (identifier) @name) @package

(class_declaration
  "interface"
  (type_identifier) @name) @definition.interface

(class_declaration
  (type_identifier) @name
  (enum_class_body)) @definition.enum

(class_declaration
  (type_identifier) @name) @definition.class

(object_declaration
  (type_identifier) @name) @definition.class

(function_declaration
  (simple_identifier) @name) @definition.function

(secondary_constructor
  "constructor" @name) @definition.constructor

(type_alias
  (type_identifier) @name) @definition.type

(property_declaration
  (modifiers
    (property_modifier) @_modifier)
  (variable_declaration
    (simple_identifier) @name)
  (#eq? @_modifier "const")) @definition.constant

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(class_body
  (property_declaration
    (variable_declaration (simple_identifier) @name)) @definition.field)
(class_parameter
  (binding_pattern_kind)
  (simple_identifier) @name) @definition.field
(enum_entry
  (simple_identifier) @name) @definition.variant

; A file's variables (indexer.types.DATA_KINDS), after its constants, which take precedence.
(source_file
  (property_declaration
    (variable_declaration (simple_identifier) @name)) @definition.variable)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(line_comment) @doc
(multiline_comment) @doc
