; PHP imports: `use A\B\C` (the group prefix for `use A\{B, C}`), and require/include with a
; string literal.

(namespace_use_declaration
  (namespace_use_clause
    .
    [(qualified_name) (name)] @module)) @import

(namespace_use_declaration
  (namespace_name) @module
  body: (namespace_use_group)) @import

([
  (require_expression [(string) (encapsed_string)] @module)
  (require_once_expression [(string) (encapsed_string)] @module)
  (include_expression [(string) (encapsed_string)] @module)
  (include_once_expression [(string) (encapsed_string)] @module)
  (require_expression (parenthesized_expression [(string) (encapsed_string)] @module))
  (require_once_expression (parenthesized_expression [(string) (encapsed_string)] @module))
  (include_expression (parenthesized_expression [(string) (encapsed_string)] @module))
  (include_once_expression (parenthesized_expression [(string) (encapsed_string)] @module))
] @import)
