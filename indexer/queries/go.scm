; Go definitions. Every qualified name starts with the file's package clause; a method is
; qualified by its receiver's type (`pkg.Type.Method`, pointer and type arguments dropped).

(package_clause
  (package_identifier) @name) @package

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @qualifier
        (pointer_type (type_identifier) @qualifier)
        (generic_type type: (type_identifier) @qualifier)
        (pointer_type (generic_type type: (type_identifier) @qualifier))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(interface_type
  (method_elem
    name: (field_identifier) @name) @definition.method)

(source_file
  (const_declaration
    (const_spec
      name: (identifier) @name) @definition.constant))

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
; Each name of `a, b int` is a field of its own (its doc comment is the declaration's).
(field_declaration_list
  (field_declaration name: (field_identifier) @name @definition.field))

; A file's variables (indexer.types.DATA_KINDS), after its constants, which take precedence.
; Each name of `var a, b int` is a variable of its own.
(source_file
  (var_declaration
    [(var_spec name: (identifier) @name @definition.variable)
     (var_spec_list (var_spec name: (identifier) @name @definition.variable))]))

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
