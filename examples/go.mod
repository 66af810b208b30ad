module github.com/harnesskit/harnesskit/examples

go 1.26.0

require github.com/harnesskit/harnesskit v0.0.0

require github.com/hashicorp/golang-lru/v2 v2.0.7 // indirect

replace github.com/harnesskit/harnesskit => ../
