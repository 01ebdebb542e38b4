; C++ includes: the header name without quotes or <> (`vector`, `lib/geometry.hpp`).

(preproc_include
  path: (_) @module) @import
