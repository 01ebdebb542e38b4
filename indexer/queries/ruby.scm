; Ruby definitions. `def` at the top level is a function, anywhere else a method (`initialize`
; included); `class A::B` is named `B` and qualified `A.B`. Constants are reported at file,
; class and module level.

(program
  (method
    name: (_) @name) @definition.function)

(method
  name: (_) @name) @definition.method

(singleton_method
  name: (_) @name) @definition.method

(class
  name: [(constant) (scope_resolution)] @name) @definition.class

(module
  name: [(constant) (scope_resolution)] @name) @definition.module

(program
  (assignment
    left: (constant) @name) @definition.constant)
(class
  (body_statement
    (assignment
      left: (constant) @name) @definition.constant))
(module
  (body_statement
    (assignment
      left: (constant) @name) @definition.constant))

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
; `attr_accessor :name, :age`: each symbol an attribute of the class (its `:` is dropped, see
; indexer/symbols.py).
(body_statement
  (call
    method: (identifier) @_attr
    arguments: (argument_list (simple_symbol) @name @definition.field)
    (#any-of? @_attr "attr_accessor" "attr_reader" "attr_writer")))

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
