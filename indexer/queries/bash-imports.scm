; Bash imports: `source file` / `. file` with a literal first argument (quotes removed, variables
; left as written: `$HOME/.rc`).

(command
  name: (command_name) @_command
  .
  argument: [(word) (string) (raw_string)] @module
  (#any-of? @_command "source" ".")) @import
