; C++ definitions. Namespaces are modules; a function in a class body is a method (a constructor
; when named like the class). An out-of-line `ns::Class::f` is named `f` and qualified
; `ns.Class.f`; it is a method unless its qualifier is a namespace defined in the same file.
; Declarations without a body (prototypes, in-class method declarations) are not reported.

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

(class_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (_)) @definition.class

(struct_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (_)) @definition.struct

(union_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (_)) @definition.struct

(enum_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (_)) @definition.enum

; A function that a macro defines: `TEST(StrCatTest, Ints) { … }`, `TEST_F(…)` (googletest),
; `BPF_CALL_2(name, …) { … }`: no return type, a name of capitals, and names alone where parameters would
; be. Two names alone are a scope and a name (`StrCatTest.Ints`); otherwise the first names the function.
(function_definition
  !type
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list
      .
      (parameter_declaration type: (type_identifier) @qualifier !declarator)
      .
      (parameter_declaration type: (type_identifier) @name !declarator)
      .))
  (#match? @_macro "^[A-Z][A-Z0-9_]+$")) @definition.function

(function_definition
  !type
  declarator: (function_declarator
    declarator: (identifier) @_macro
    parameters: (parameter_list . (parameter_declaration type: (type_identifier) @name !declarator)))
  (#match? @_macro "^[A-Z][A-Z0-9_]+$")) @definition.function

(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @name))
    (reference_declarator (function_declarator declarator: (qualified_identifier) @name))
  ]) @definition.method

(function_definition
  declarator: [
    (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)))
    (reference_declarator
      (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]) @definition.function

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

(alias_declaration
  name: (type_identifier) @name) @definition.type

(preproc_def
  name: (identifier) @name) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

; `const` / `constexpr` variables at file or namespace level.
(translation_unit
  (declaration
    (type_qualifier) @_qualifier
    declarator: (init_declarator
      declarator: (identifier) @name)
    (#any-of? @_qualifier "const" "constexpr")) @definition.constant)
(declaration_list
  (declaration
    (type_qualifier) @_qualifier
    declarator: (init_declarator
      declarator: (identifier) @name)
    (#any-of? @_qualifier "const" "constexpr")) @definition.constant)

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
