package patch

// WithRandom is withRandom for the external tests: a deterministic source of temporary-file
// names.
var WithRandom = withRandom
