; Haskell imports: `import qualified Data.Map as M`, `import Data.List (sort)`.

(import
  module: (module) @module) @import
