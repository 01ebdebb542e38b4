; Bash definitions: functions (either syntax), and top-level `readonly` / `declare -r` variables
; as constants.

(function_definition
  name: (word) @name) @definition.function

(program
  (declaration_command
    "readonly"
    (variable_assignment
      name: (variable_name) @name) @definition.constant))

(program
  (declaration_command
    "declare"
    (word) @_flag
    (variable_assignment
      name: (variable_name) @name) @definition.constant
    (#match? @_flag "^-[a-zA-Z]*r")))

; Comments and decorators that may belong to the definition below them (see indexer/symbols.py).
(comment) @doc
