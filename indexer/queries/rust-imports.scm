; Rust imports: the path of a `use` declaration up to any `{...}`, `*` or `as`
; (`use std::fmt::{self, Display}` → `std::fmt`), and `extern crate x`.

(use_declaration
  argument: [(scoped_identifier) (identifier) (crate) (self) (super)] @module) @import

(use_declaration
  argument: (scoped_use_list
    path: (_) @module)) @import

(use_declaration
  argument: (use_as_clause
    path: (_) @module)) @import

(use_declaration
  argument: (use_wildcard
    [(scoped_identifier) (identifier) (crate) (self) (super)] @module)) @import

(extern_crate_declaration
  name: (identifier) @module) @import
