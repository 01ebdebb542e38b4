; C and C++ (their grammars name these nodes alike): appended to each one's tags query by
; indexer/parsing.py, after its own patterns.
;
; Fields and enum variants (indexer.types.DATA_KINDS), after the patterns that take precedence.
(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
    ; a function pointer returning a pointer: `struct dentry * (*lookup)(struct inode *, …);`
    (pointer_declarator
      declarator: (function_declarator
        declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name))))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator
          declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))))
    ; an array of them: `int (*handlers[4])(void);`
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (array_declarator declarator: (field_identifier) @name))))
  ] @definition.field)
(enumerator
  name: (identifier) @name) @definition.variant

; A file's variables (indexer.types.DATA_KINDS), after its constants, which take precedence.
; A file-level variable defined with a value (`static struct file_operations ext4_fops = {…}`, `int
; count = 0;`); not a declaration without one (`extern int z;`, a prototype).
(translation_unit
  (declaration
    declarator: (init_declarator
      declarator: [
        (identifier) @name
        (pointer_declarator declarator: (identifier) @name)
        (array_declarator declarator: (identifier) @name)
        (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
      ])) @definition.variable)
