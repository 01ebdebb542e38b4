; C includes: the header name without quotes or <> (`stdio.h`, `lib/buffer.h`).

(preproc_include
  path: (_) @module) @import
