// Package realhosts holds the end-to-end tests that run real agent hosts against the
// harnesskit MCP server: Claude Code, Gemini CLI and OpenCode, each at the version pinned
// in testdata/hosts/package-lock.json, through one whole turn.
//
// The model is a scripted fake on loopback (httptest): an Anthropic Messages API for
// Claude Code and OpenCode, a Gemini API for Gemini CLI, each pointed at by the host's own
// base-URL setting. Its turn patches a file (with Gemini CLI's wait_for_previous argument
// set on every call), edits it with edit and with multi_edit (an old string with trailing
// spaces the file does not have), tries a path outside the workspace, reads the file three times (the
// loop guard's notice arrives on the third) and answers; the tests check each result as
// the host handed it back to the model, the answer, and the file on disk. The hosts get a
// fresh HOME and a proxy that refuses every address but loopback, so nothing leaves the
// machine. The server is configured with the files in testdata, which the README shows.
//
// A host that is not installed is skipped with a message saying how to install it
// (npm ci --prefix examples/realhosts/testdata/hosts, as .ci/run does).
package realhosts
