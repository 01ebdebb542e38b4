; Haskell definitions. The module header prefixes every qualified name (`Data.Aeson.encode`).
; A type signature and the equations that follow it (`f :: Int -> Int`, `f 0 = 1`, `f n = n`) are
; consecutive definitions of one name, which indexer/symbols.py joins into one symbol that starts
; at the signature. Functions in a class or instance are methods; an instance (also a standalone
; `deriving instance`) is named after its class, unqualified, and type (`instance A.ToJSON (Maybe
; a)` is `ToJSON (Maybe a)`). Local `where`/`let` bindings are not reported.

(header
  module: (module) @name) @package

; Top-level functions, operators and values, with their signatures.
(declarations
  (signature name: (variable) @name) @definition.function)
(declarations
  (signature name: (prefix_id (operator) @name)) @definition.function)
(declarations
  (function name: (variable) @name) @definition.function)
(declarations
  (function name: (prefix_id (operator) @name)) @definition.function)
(declarations
  (function (infix operator: (operator) @name)) @definition.function)
(declarations
  (function (infix operator: (infix_id (variable) @name))) @definition.function)
(declarations
  (bind name: (variable) @name) @definition.function)
(declarations
  (bind name: (prefix_id (operator) @name)) @definition.function)

(data_type
  name: (name) @name) @definition.struct
(newtype
  name: (name) @name) @definition.struct
(data_family
  name: (name) @name) @definition.type
(type_synomym
  name: (name) @name) @definition.type
(type_family
  name: (name) @name) @definition.type

(class
  name: (name) @name) @definition.interface

(instance
  name: [(name) @name (qualified id: (name) @name)]
  patterns: (type_patterns) @name) @definition.class
(deriving_instance
  name: [(name) @name (qualified id: (name) @name)]
  patterns: (type_patterns) @name) @definition.class

; Methods: the signatures and default definitions of a class, the definitions of an instance.
(class_declarations
  (signature name: (variable) @name) @definition.function)
(class_declarations
  (signature name: (prefix_id (operator) @name)) @definition.function)
(class_declarations
  [(function name: (variable) @name) (bind name: (variable) @name)] @definition.function)
(class_declarations
  [(function name: (prefix_id (operator) @name)) (bind name: (prefix_id (operator) @name))] @definition.function)
(instance_declarations
  [(function name: (variable) @name) (bind name: (variable) @name)] @definition.function)
(instance_declarations
  [(function name: (prefix_id (operator) @name)) (bind name: (prefix_id (operator) @name))] @definition.function)
(instance_declarations
  (function (infix operator: (operator) @name)) @definition.function)

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
; Each name of a record's `{ x, y :: Int }` is a field of its own.
(field
  (field_name (variable) @name) @definition.field)

; Comments and pragmas that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
(haddock) @doc
(pragma) @decoration
