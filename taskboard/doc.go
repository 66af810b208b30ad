// Package taskboard is the background-task job board of an agent host.
//
// Contract: a deterministic Board holds task records, aliases, parent/child links,
// generations, tombstones and leases (at most one per task ID, released only with its exact
// token). The task, status, result, message, cancel and revive protocols, compensation for
// orphaned children and wait_for_user are step machines that take host replies and deadline
// events and return the next host calls; a thin driver runs them against the host's
// interfaces with real deadlines. The core starts no goroutines and reads time only from an
// injected clock.
//
// The behaviour is specified in the project's taskboard specification; the package gets its
// code with the taskboard issue.
package taskboard
