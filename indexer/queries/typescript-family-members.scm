; TypeScript and TSX: appended to each one's tags query by indexer/parsing.py, after its own patterns.
;
; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.field
(interface_body
  (property_signature name: (property_identifier) @name) @definition.field)
;; a constructor's parameter properties declare the class's fields too (`constructor(private readonly
;; http: HttpClient)`): a parameter with an accessibility modifier, `readonly` or `override`
(method_definition
  name: (property_identifier) @_constructor
  parameters: (formal_parameters
    [(required_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)
     (optional_parameter [(accessibility_modifier) (override_modifier) "readonly"] pattern: (identifier) @name)]
      @definition.field)
  (#eq? @_constructor "constructor"))
;; a type alias of an object type is an interface written another way (`type Action = { type: T }`);
;; the object types inside its members' types (a function's parameter, its result) are not its members
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.field))
(type_alias_declaration value: (object_type (method_signature name: (property_identifier) @name) @definition.method))
;; so is an object type the alias is an intersection or a union of (`type Options = Base & { port: number }`,
;; a discriminated union's variants). The grammar nests `A | B | C` to the left, so a union's first variant
;; lies as deep as it has variants less one: the patterns follow a chain of one kind four deep (a union of six
;; or more loses its first), never through an object type (a member's own type's members are not the alias's)
(type_alias_declaration
  value: [(intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.field))
          (union_type (object_type (property_signature name: (property_identifier) @name) @definition.field))])
(type_alias_declaration
  value: [(intersection_type (object_type (method_signature name: (property_identifier) @name) @definition.method))
          (union_type (object_type (method_signature name: (property_identifier) @name) @definition.method))])
(type_alias_declaration
  value: [(intersection_type (intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.field)))
          (union_type (union_type (object_type (property_signature name: (property_identifier) @name) @definition.field)))])
(type_alias_declaration
  value: [(intersection_type (intersection_type (object_type (method_signature name: (property_identifier) @name) @definition.method)))
          (union_type (union_type (object_type (method_signature name: (property_identifier) @name) @definition.method)))])
(type_alias_declaration
  value: [(intersection_type (intersection_type (intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.field))))
          (union_type (union_type (union_type (object_type (property_signature name: (property_identifier) @name) @definition.field))))])
(type_alias_declaration
  value: [(intersection_type (intersection_type (intersection_type (object_type (method_signature name: (property_identifier) @name) @definition.method))))
          (union_type (union_type (union_type (object_type (method_signature name: (property_identifier) @name) @definition.method))))])
(type_alias_declaration
  value: [(intersection_type (intersection_type (intersection_type (intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.field)))))
          (union_type (union_type (union_type (union_type (object_type (property_signature name: (property_identifier) @name) @definition.field)))))])
(type_alias_declaration
  value: [(intersection_type (intersection_type (intersection_type (intersection_type (object_type (method_signature name: (property_identifier) @name) @definition.method)))))
          (union_type (union_type (union_type (union_type (object_type (method_signature name: (property_identifier) @name) @definition.method)))))])
(enum_body
  [(property_identifier) @name @definition.variant
   (enum_assignment name: (property_identifier) @name) @definition.variant])
