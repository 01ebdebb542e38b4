; TypeScript and TSX: appended to each one's tags query by indexer/parsing.py, after its own patterns.
;
; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.field
(interface_body
  (property_signature name: (property_identifier) @name) @definition.field)
(enum_body
  [(property_identifier) @name @definition.variant
   (enum_assignment name: (property_identifier) @name) @definition.variant])
