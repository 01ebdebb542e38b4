; Swift imports: the module or declaration (`Foundation`, `UIKit.CGRect` for `import struct ...`).

(import_declaration
  (identifier) @module) @import
