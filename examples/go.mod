module github.com/harnesskit/harnesskit/examples

go 1.26.0

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/google/go-cmp v0.7.0
	github.com/google/jsonschema-go v0.4.3
	github.com/harnesskit/harnesskit v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	golang.org/x/mod v0.43.0
	golang.org/x/text v0.44.0
	pgregory.net/rapid v1.3.0
)

require (
	codeberg.org/readeck/go-readability/v2 v2.1.3 // indirect
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2 // indirect
	github.com/alexaandru/go-sitter-forest/elixir v1.9.5 // indirect
	github.com/alexaandru/go-sitter-forest/kotlin v1.9.4 // indirect
	github.com/alexaandru/go-sitter-forest/nix v1.9.4 // indirect
	github.com/alexaandru/go-sitter-forest/solidity v1.9.3 // indirect
	github.com/alexaandru/go-sitter-forest/swift v1.9.5 // indirect
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/go-shiori/dom v0.0.0-20230515143342-73569d674e1c // indirect
	github.com/gogs/chardet v0.0.0-20211120154057-b7413eaefb8f // indirect
	github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect
	github.com/itlightning/dateparse v0.2.1 // indirect
	github.com/mattn/go-pointer v0.0.1 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/tree-sitter-grammars/tree-sitter-lua v0.5.0 // indirect
	github.com/tree-sitter-grammars/tree-sitter-yaml v0.7.2 // indirect
	github.com/tree-sitter/go-tree-sitter v0.25.0 // indirect
	github.com/tree-sitter/tree-sitter-bash v0.25.1 // indirect
	github.com/tree-sitter/tree-sitter-c v0.24.2 // indirect
	github.com/tree-sitter/tree-sitter-c-sharp v0.23.5 // indirect
	github.com/tree-sitter/tree-sitter-cpp v0.23.4 // indirect
	github.com/tree-sitter/tree-sitter-css v0.25.0 // indirect
	github.com/tree-sitter/tree-sitter-go v0.25.0 // indirect
	github.com/tree-sitter/tree-sitter-haskell v0.23.1 // indirect
	github.com/tree-sitter/tree-sitter-html v0.23.2 // indirect
	github.com/tree-sitter/tree-sitter-java v0.23.5 // indirect
	github.com/tree-sitter/tree-sitter-javascript v0.25.0 // indirect
	github.com/tree-sitter/tree-sitter-json v0.24.8 // indirect
	github.com/tree-sitter/tree-sitter-php v0.25.0 // indirect
	github.com/tree-sitter/tree-sitter-python v0.25.0 // indirect
	github.com/tree-sitter/tree-sitter-ruby v0.23.1 // indirect
	github.com/tree-sitter/tree-sitter-rust v0.24.1 // indirect
	github.com/tree-sitter/tree-sitter-scala v0.26.0 // indirect
	github.com/tree-sitter/tree-sitter-typescript v0.23.2 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/net v0.63.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/harnesskit/harnesskit => ../
