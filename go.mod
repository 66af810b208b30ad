module github.com/harnesskit/harnesskit

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82
	pgregory.net/rapid v1.3.0
)

require github.com/bmatcuk/doublestar/v4 v4.10.4
