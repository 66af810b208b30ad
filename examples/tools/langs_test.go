package tools

// The package links no grammar; its tests search every language, as a host that imports
// astsearch/lang/all does.
import _ "github.com/harnesskit/harnesskit/astsearch/lang/all"
