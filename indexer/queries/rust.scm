; Rust definitions. An `impl` block is a scope named after its type (`impl<T> Tr for a::Foo<T>`
; → `Foo`), so its functions are methods `Foo.f`; functions in a trait are methods too.

(impl_item
  type: [
    (type_identifier) @name
    (primitive_type) @name
    (generic_type type: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (scoped_type_identifier name: (type_identifier) @name)
  ]) @scope.type

(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

(type_item
  name: (type_identifier) @name) @definition.type

(mod_item
  name: (identifier) @name) @definition.module

(macro_definition
  name: (identifier) @name) @definition.macro

; Constants and statics at module, impl or trait level (not inside function bodies).
(source_file
  [(const_item name: (identifier) @name) (static_item name: (identifier) @name)] @definition.constant)
(declaration_list
  [(const_item name: (identifier) @name) (static_item name: (identifier) @name)] @definition.constant)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(line_comment) @doc
(block_comment) @doc
(attribute_item) @decoration
