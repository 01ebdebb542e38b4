; JavaScript definitions. Earlier patterns win when two capture the same node.

(class_declaration
  name: (identifier) @name) @definition.class

(class
  name: (identifier) @name) @definition.class

; Methods of classes (the functions of a file-level object literal: ecmascript-objects.scm).
(class_body
  (method_definition
    name: (property_identifier) @name
    (#eq? @name "constructor")) @definition.constructor)

(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

; Class fields holding a function: `handle = () => {}`.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
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

; `res.send = function send() {}` at file level (Express's request/response/application objects),
; also the last of a chain `req.get = req.header = function () {}`: `res.send`, a function.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (identifier) @qualifier
        property: (property_identifier) @name)
      right: [(arrow_function) (function_expression)]
      (#not-match? @qualifier "^(module|exports)$"))) @definition.function)
(program
  (expression_statement
    (assignment_expression
      right: (assignment_expression
        left: (member_expression
          object: (identifier) @qualifier
          property: (property_identifier) @name)
        right: [(arrow_function) (function_expression)]
        (#not-match? @qualifier "^(module|exports)$")) @definition.function)))

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

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name) @definition.field

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
(decorator) @decoration
