; C# definitions. Namespaces (block or file-scoped) are not reported but prefix qualified names
; (`Acme.Billing.Ledger.Post`). Properties, fields and events are not reported; `const` fields are.

(file_scoped_namespace_declaration
  name: [(identifier) (qualified_name)] @name) @package

(namespace_declaration
  name: [(identifier) (qualified_name)] @name) @scope.module

(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  "struct"
  name: (identifier) @name) @definition.struct

(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(destructor_declaration
  name: (identifier) @name) @definition.method

(local_function_statement
  name: (identifier) @name) @definition.function

(field_declaration
  (modifier) @_modifier
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))
  (#eq? @_modifier "const")) @definition.constant

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(property_declaration
  name: (identifier) @name) @definition.field
(field_declaration
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.field))
(enum_member_declaration
  name: (identifier) @name) @definition.variant

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
