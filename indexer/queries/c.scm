; C definitions. Prototypes (declarations without a body) are not reported; `typedef struct {...} T`
; with an anonymous struct/union/enum reports T as that struct or enum.

; A function that a macro defines: `SYSCALL_DEFINE3(open, const char __user *, filename, …) { … }`
; (Linux), `PHP_METHOD(Phar, running) { … }`, `TEST(Suite, Name) { … }`. Two names alone are a scope and a
; name (`Phar.running`); otherwise the macro's first argument names the function. The grammar reads the
; call and its body as two statements: `@then_body` makes the block right after the call its body, and
; the call no definition without one or inside a block (`TAILQ_FOREACH(var, head, field) { … }` in a
; function is a loop). A pattern of siblings under their parent would find none in a file whose root the
; grammar could only read as an ERROR node.
(expression_statement
  (call_expression
    function: (identifier) @_macro
    arguments: (argument_list . (identifier) @qualifier . (identifier) @name .))
  (#match? @_macro "^[A-Z][A-Z0-9_]+$")) @definition.function @then_body

(expression_statement
  (call_expression
    function: (identifier) @_macro
    arguments: (argument_list . (identifier) @name))
  (#match? @_macro "^[A-Z][A-Z0-9_]+$")) @definition.function @then_body

; …and with one argument the grammar reads a function of the macro's type: `SYSCALL_DEFINE0(getpid) { … }`,
; `TEST_IMPL(fs_file_noent) { … }` (libuv).
(function_definition
  type: (type_identifier) @_macro
  declarator: (parenthesized_declarator . (identifier) @name .)
  (#match? @_macro "^[A-Z][A-Z0-9_]+$")) @definition.function

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

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
