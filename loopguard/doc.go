// Package loopguard notices a model repeating the same tool call with identical results.
//
// Contract: a streak counts only calls whose tool, canonical arguments and output are
// identical to the previous call's; counting happens after the result is known. From the
// third identical result a corrective notice is appended to the output; after the fifth, the
// next identical read or search is refused. Task-control and wait tools are exempt, and a new
// user message resets the streak. The core is a pure type; a concurrency-safe wrapper bounds
// the number of sessions it remembers.
//
// The behaviour is specified in the project's loopguard specification; the package gets its
// code with the loopguard issue.
package loopguard
