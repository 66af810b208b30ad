package mcpserver_test

// The server links no grammar of its own (examples/tools imports none); its tests search
// every language, as the harnesskit CLI's server does.
import _ "github.com/harnesskit/harnesskit/astsearch/lang/all"
