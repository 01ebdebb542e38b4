; JavaScript, TypeScript and TSX: appended to each one's tags query by indexer/parsing.py, after its
; own patterns and ecmascript-objects.scm.
;
; `export const emptyDirSync = _empty.emptyDirSync` (fs-extra's lib/esm.mjs): another module's
; definition made public under its own name is a re-export, not a definition of the name.
(program
  (export_statement
    declaration: [
      (lexical_declaration
        (variable_declarator
          name: (identifier) @name
          value: (member_expression property: (property_identifier) @_member)) @definition.reexport)
      (variable_declaration
        (variable_declarator
          name: (identifier) @name
          value: (member_expression property: (property_identifier) @_member)) @definition.reexport)])
  (#eq? @name @_member))

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
