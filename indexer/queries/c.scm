; C definitions. Prototypes (declarations without a body) are not reported; `typedef struct {...} T`
; with an anonymous struct/union/enum reports T as that struct or enum.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (_)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (_)) @definition.enum

(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_))]
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (enum_specifier !name body: (_))
  declarator: (type_identifier) @name) @definition.enum

(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (array_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(preproc_def
  name: (identifier) @name) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

; File-level `const` variables.
(translation_unit
  (declaration
    (type_qualifier) @_qualifier
    declarator: (init_declarator
      declarator: (identifier) @name)
    (#eq? @_qualifier "const")) @definition.constant)

; Fields (data members, properties) and enum variants: found by name, never chunked on their own
; (see indexer/chunks.py). After every other pattern, so a more specific one (a constant, a field
; holding a function) wins for the same node.
(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ] @definition.field)
(enumerator
  name: (identifier) @name) @definition.variant

; Variables a file or package defines, other than its constants (an earlier pattern): found by name,
; never chunked on their own, like fields.
; A file-level variable defined with a value (`static struct file_operations ext4_fops = {…}`, `int
; count = 0;`); not a declaration without one (`extern int z;`, a prototype).
(translation_unit
  (declaration
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
        (array_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      ])) @definition.variable)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
