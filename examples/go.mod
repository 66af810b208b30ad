module github.com/harnesskit/harnesskit/examples

go 1.26.0

require github.com/harnesskit/harnesskit v0.0.0

replace github.com/harnesskit/harnesskit => ../
