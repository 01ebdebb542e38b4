; C# using directives: the namespace or type (`System.Collections.Generic`; the target of an
; alias `using A = B.C;`). `using static` and `global using` are included.

(using_directive
  !name
  [(identifier) (qualified_name)] @module) @import

(using_directive
  name: (_)
  [(qualified_name) (generic_name)] @module) @import
