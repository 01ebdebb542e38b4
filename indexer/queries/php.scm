; PHP definitions. `namespace App\Mail;` prefixes qualified names (`App.Mail.Mailer.send`);
; a braced `namespace X { }` is a scope. `__construct` is a constructor.

(namespace_definition
  name: (namespace_name) @name
  !body) @package

(namespace_definition
  name: (namespace_name) @name
  body: (_)) @scope.module

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(method_declaration
  name: (name) @name
  (#eq? @name "__construct")) @definition.constructor

(method_declaration
  name: (name) @name) @definition.method

(function_definition
  name: (name) @name) @definition.function

(const_declaration
  (const_element
    (name) @name) @definition.constant)

; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(property_element
  name: (variable_name (name) @name)) @definition.field
(enum_case
  name: (name) @name) @definition.variant

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
