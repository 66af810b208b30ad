// Package tsx registers the TSX grammar with astsearch (ast-grep's "tsx"), so that a search
// with Lang "tsx" runs in process. A host links it with a blank import:
//
//	import _ "github.com/harnesskit/harnesskit/astsearch/lang/tsx"
//
// TSX and TypeScript come from one grammar module, so this package only imports
// astsearch/lang/typescript, which registers both.
package tsx

import _ "github.com/harnesskit/harnesskit/astsearch/lang/typescript" // registers "typescript" and "tsx"
