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

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
