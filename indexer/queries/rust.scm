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

;; Names another crate defines and this one re-exports as its own public API
;; (`pub use axum_core::extract::{FromRequest, FromRef};`): the workspace's only place for them.
;; Crate-internal re-exports (self::, crate::, super::) are left out: their definition is here.
(use_declaration
  (visibility_modifier) @_vis
  argument: (scoped_use_list
    path: (_) @_path
    list: (use_list [(identifier) @name (scoped_identifier name: (identifier) @name)] @definition.reexport))
  (#eq? @_vis "pub")
  (#not-match? @_path "^(self|crate|super)(::|$)"))

(use_declaration
  (visibility_modifier) @_vis
  argument: (scoped_identifier
    path: (_) @_path
    name: (identifier) @name @definition.reexport)
  (#eq? @_vis "pub")
  (#not-match? @_path "^(self|crate|super)(::|$)"))

(use_declaration
  (visibility_modifier) @_vis
  argument: (use_as_clause
    path: (_) @_path
    alias: (identifier) @name @definition.reexport)
  (#eq? @_vis "pub")
  (#not-match? @_path "^(self|crate|super)(::|$)"))

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(field_declaration_list
  (field_declaration name: (field_identifier) @name) @definition.field)
(enum_variant_list
  (enum_variant name: (identifier) @name) @definition.variant)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(line_comment) @doc
(block_comment) @doc
(attribute_item) @decoration
