; JavaScript, TypeScript and TSX (their grammars name these nodes alike): appended to each one's tags
; query by indexer/parsing.py, after its own patterns, which capture none of these nodes.
;
; The functions of a namespace object declared at file level are its methods: `const orders = {
; asc(a, b) {...}, desc: (a, b) => ... }` (`orders.asc`), and those of an old-style prototype,
; `Foo.prototype = { bar() {...} }` (`Foo.bar`), and those of `module.exports = {...}` (functions)
; when it holds several (`@namespace`: indexer/symbols.py drops a lone one): Koa's request and response
; objects are its API, where an ESLint rule's `{ meta, create(context) {...} }` is a record whose one
; function holds the whole module and, reported, became one chunk that swallowed its helpers
; (ESLint's docstring MRR@10 fell by 0.035). Not those of objects inside functions (visitors, options,
; returned records).
(program
  (_
    (variable_declarator
      name: (identifier) @qualifier
      value: (object
        [(method_definition
           name: (property_identifier) @name)
         (pair
           key: (property_identifier) @name
           value: [(arrow_function) (function_expression)])] @definition.method))))
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @qualifier
        value: (object
          [(method_definition
             name: (property_identifier) @name)
           (pair
             key: (property_identifier) @name
             value: [(arrow_function) (function_expression)])] @definition.method)))))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (identifier) @qualifier
        property: (property_identifier) @_prototype)
      right: (object
        [(method_definition
           name: (property_identifier) @name)
         (pair
           key: (property_identifier) @name
           value: [(arrow_function) (function_expression)])] @definition.method)
      (#eq? @_prototype "prototype"))))

(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (identifier) @_module
        property: (property_identifier) @_exports)
      right: (object
        [(method_definition
           name: (property_identifier) @name)
         (pair
           key: (property_identifier) @name
           value: [(arrow_function) (function_expression)])] @definition.function) @namespace
      (#eq? @_module "module")
      (#eq? @_exports "exports"))))
(program
  (_
    (variable_declarator
      value: (assignment_expression
        left: (member_expression
          object: (identifier) @_module
          property: (property_identifier) @_exports)
        right: (object
          [(method_definition
             name: (property_identifier) @name)
           (pair
             key: (property_identifier) @name
             value: [(arrow_function) (function_expression)])] @definition.function) @namespace
        (#eq? @_module "module")
        (#eq? @_exports "exports")))))
