; Scala imports. The grammar gives a path's parts as sibling identifiers, so the query captures
; only the statement and indexer/imports.py assembles `a.b` from `import a.b.{c, d}`.

(import_declaration) @import
