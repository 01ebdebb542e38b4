; JavaScript, TypeScript and TSX: appended to each one's tags query by indexer/parsing.py, after its
; own patterns and ecmascript-objects.scm.
;
; A file's variables (indexer.types.DATA_KINDS), after its constants, which take precedence.
; Not `const x = require('x')`: an import.
(program
  [(lexical_declaration (variable_declarator name: (identifier) @name value: (_) @_value) @definition.variable)
   (variable_declaration (variable_declarator name: (identifier) @name value: (_) @_value) @definition.variable)
   (export_statement
     declaration: [
       (lexical_declaration (variable_declarator name: (identifier) @name value: (_) @_value) @definition.variable)
       (variable_declaration (variable_declarator name: (identifier) @name value: (_) @_value) @definition.variable)])]
  (#not-match? @_value "^require[ (]"))
