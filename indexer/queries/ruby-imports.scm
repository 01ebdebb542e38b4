; Ruby imports: require / require_relative / load with a string literal.

(call
  method: (identifier) @_method
  arguments: (argument_list
    .
    (string
      (string_content) @module))
  (#any-of? @_method "require" "require_relative" "load")) @import
