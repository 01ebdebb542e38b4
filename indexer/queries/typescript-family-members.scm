; TypeScript and TSX: appended to each one's tags query by indexer/parsing.py, after its own patterns.
;
; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.field
(interface_body
  (property_signature name: (property_identifier) @name) @definition.field)
;; a type alias of an object type is an interface written another way (`type Action = { type: T }`);
;; the object types inside its members' types (a function's parameter, its result) are not its members
(type_alias_declaration
  value: (object_type
    (property_signature name: (property_identifier) @name) @definition.field))
(enum_body
  [(property_identifier) @name @definition.variant
   (enum_assignment name: (property_identifier) @name) @definition.variant])
