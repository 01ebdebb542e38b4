; Java definitions. The package clause prefixes every qualified name (`com.example.Foo.bar`).

(package_declaration
  [(scoped_identifier) (identifier)] @name) @package

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(compact_constructor_declaration
  name: (identifier) @name) @definition.constructor

; `static final` fields with UPPER_CASE names, and interface constants.
(field_declaration
  (modifiers) @_modifiers
  declarator: (variable_declarator
    name: (identifier) @name)
  (#match? @_modifiers "static")
  (#match? @_modifiers "final")
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant

(constant_declaration
  declarator: (variable_declarator
    name: (identifier) @name)
  (#match? @name "^[A-Z][A-Z0-9_]*$")) @definition.constant

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(field_declaration
  declarator: (variable_declarator name: (identifier) @name) @definition.field)
(enum_constant
  name: (identifier) @name) @definition.variant
(record_declaration
  parameters: (formal_parameters (formal_parameter name: (identifier) @name) @definition.field))

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(line_comment) @doc
(block_comment) @doc
