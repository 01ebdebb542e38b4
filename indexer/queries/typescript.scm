; TypeScript definitions (tsx.scm is the same file). Earlier patterns win when two capture one node.

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(class
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

; `namespace A.B {}` / `module A {}`; ambient `declare module "x"` is not reported.
(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: [(identifier) (nested_identifier)] @name) @definition.module

; Methods of classes (the functions of a file-level object literal: ecmascript-objects.scm).
(class_body
  (method_definition
    name: (property_identifier) @name
    (#eq? @name "constructor")) @definition.constructor)

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

(class_body
  (abstract_method_signature
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

(interface_body
  (method_signature
    name: (property_identifier) @name) @definition.method)

; Class fields holding a function: `handle = () => {}`.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; `const f = () => {}` / `let g = function () {}` at any level.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; Old-style `Foo.prototype.bar = function () {}` is a method of Foo.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @qualifier
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)]
    (#eq? @_prototype "prototype"))) @definition.method

; `exports.f = function () {}` / `module.exports.f = () => {}`.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (_) @_exports
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression)]
    (#match? @_exports "^(module\\.)?exports$"))) @definition.function

; Top-level `const UPPER_CASE = ...` (also when exported) is a constant.
(program
  (lexical_declaration
    "const"
    (variable_declarator
      name: (identifier) @name
      (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant))
(program
  (export_statement
    declaration: (lexical_declaration
      "const"
      (variable_declarator
        name: (identifier) @name
        (#match? @name "^_*[A-Z][A-Z0-9_]*$")) @definition.constant)))

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
(decorator) @decoration
