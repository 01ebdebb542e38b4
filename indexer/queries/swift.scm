; Swift definitions. `extension T` is a scope named T (its functions are methods of T); protocols
; are interfaces; `init` is a constructor. Top-level `let` bindings are constants.

(class_declaration
  declaration_kind: "extension"
  name: (user_type) @name) @scope.type

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name) @definition.enum

(class_declaration
  name: (type_identifier) @name) @definition.class

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(init_declaration
  "init" @name) @definition.constructor

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(source_file
  (property_declaration
    (value_binding_pattern) @_binding
    name: (pattern
      bound_identifier: (simple_identifier) @name)
    (#eq? @_binding "let")) @definition.constant)

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(class_body
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
(protocol_body
  (protocol_property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.field)
; Each name of `case a, b` is a variant of its own.
(enum_entry
  name: (simple_identifier) @name @definition.variant)

; A file's variables (indexer.types.DATA_KINDS), after its constants, which take precedence.
(source_file
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
(multiline_comment) @doc
