// Package readme holds the tests that keep the repository's README true: its Go snippets
// compile as a reader would paste them, the astsearch rewrite it shows leaves compiling
// code, the steps of "Use it from your module" work in a new module, the quick start says
// what the first build costs, and the constructors the docs name are the ones it uses.
package readme
