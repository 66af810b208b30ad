package pathguard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Host is the version of the host's grep/glob tools, which resolve a relative path
// differently.
type Host uint8

const (
	// HostV1: OpenCode's v1 tools. grep joins a relative path to the project directory
	// (keeping a trailing separator); glob resolves it.
	HostV1 Host = iota
	// HostV2: OpenCode's v2 tool adapter, which resolves the path for both tools.
	HostV2
)

// String returns "v1" or "v2".
func (h Host) String() string {
	switch h {
	case HostV1:
		return "v1"
	case HostV2:
		return "v2"
	}
	return fmt.Sprintf("Host(%d)", uint8(h))
}

// Outcome is what the search check concluded about one call, as reported to the observer.
type Outcome string

const (
	OutcomePass          Outcome = "pass"            // the path exists
	OutcomePassStatError Outcome = "pass-stat-error" // stat failed for another reason; passed
	OutcomeMissing       Outcome = "missing"         // refused: KindMissing
	OutcomeNotDirectory  Outcome = "not-directory"   // refused: KindNotDirectory
)

// Event is reported to the observer once per call whose path was looked at.
type Event struct {
	Tool, Raw, Resolved string
	Outcome             Outcome
	Err                 error // the stat error, if any
}

// SearchGuard is the grep/glob pre-check: it resolves the path argument exactly as the host
// will and refuses a path that cannot name an existing location. Build it with
// [NewSearchGuard]; it is immutable, stateless and safe for concurrent use.
type SearchGuard struct {
	host     Host
	flavor   Flavor
	stat     func(name string) error
	observer func(Event)
}

// A SearchOption configures [NewSearchGuard] and [NewRescuer].
type SearchOption func(*searchConfig)

type searchConfig struct {
	host     Host
	flavor   Flavor
	stat     func(name string) error
	observer func(Event)
}

// GoString makes the configuration readable in test failures.
func (c *searchConfig) GoString() string {
	name := "native"
	if c.flavor != nil {
		name = c.flavor.Name()
	}
	return fmt.Sprintf("searchConfig{host: %v, flavor: %s, stat: %v, observer: %v}", c.host, name, c.stat != nil, c.observer != nil)
}

// WithHost sets the host version whose resolution rules are mirrored. Default: [HostV1].
// Ignored by the Rescuer.
func WithHost(h Host) SearchOption { return func(c *searchConfig) { c.host = h } }

// WithFlavor sets the path rules. Default: [Native].
func WithFlavor(f Flavor) SearchOption { return func(c *searchConfig) { c.flavor = f } }

// WithStat sets the function that checks a resolved path; it must follow symlinks like
// os.Stat and return errors that match fs.ErrNotExist and syscall.ENOTDIR with errors.Is.
// Default: os.Stat. With the Windows flavour on another OS, pass a fake.
func WithStat(stat func(name string) error) SearchOption {
	return func(c *searchConfig) { c.stat = stat }
}

// WithObserver receives one [Event] per checked call (calls that pass without looking
// produce none). It is called synchronously and must be safe for concurrent use if the
// guard is. Default: none. Ignored by the Rescuer.
func WithObserver(fn func(Event)) SearchOption { return func(c *searchConfig) { c.observer = fn } }

func osStat(name string) error {
	_, err := os.Stat(name)
	return err
}

func newSearchConfig(opts []SearchOption) searchConfig {
	cfg := searchConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.flavor == nil {
		cfg.flavor = Native()
	}
	if cfg.stat == nil {
		cfg.stat = osStat
	}
	return cfg
}

// NewSearchGuard returns a search-path check. It does no I/O and starts no goroutines.
func NewSearchGuard(opts ...SearchOption) *SearchGuard {
	cfg := newSearchConfig(opts)
	return &SearchGuard{host: cfg.host, flavor: cfg.flavor, stat: cfg.stat, observer: cfg.observer}
}

// Check runs the pre-check for one tool call. args is the call's argument object and
// projectDir the host's project directory.
//
// It returns nil (pass) for every tool not named exactly "grep" or "glob", when args has no
// string "path" or it is "", when projectDir is "", when the resolved path exists, and when
// stat fails for any reason other than not-exist or not-a-directory (permissions, loops,
// I/O, a NUL byte): the guard never blocks on an environment error. Otherwise it returns an
// *[Error] of [KindMissing] or [KindNotDirectory] whose message tells the model what was
// resolved from what, and what to do. It never changes args and never confines the path.
func (g *SearchGuard) Check(tool string, args map[string]any, projectDir string) error {
	if tool != "grep" && tool != "glob" {
		return nil
	}
	raw, ok := args["path"].(string)
	if !ok || raw == "" || projectDir == "" {
		return nil
	}
	resolved := g.Resolve(tool, projectDir, raw)
	err := g.stat(resolved)
	ev := Event{Tool: tool, Raw: raw, Resolved: resolved, Outcome: OutcomePass, Err: err}
	var refusal error
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist):
		ev.Outcome = OutcomeMissing
		refusal = &Error{Kind: KindMissing, Tool: tool, Path: raw, Resolved: resolved, Err: err}
	case errors.Is(err, syscall.ENOTDIR):
		ev.Outcome = OutcomeNotDirectory
		refusal = &Error{Kind: KindNotDirectory, Tool: tool, Path: raw, Resolved: resolved, Err: err}
	default:
		ev.Outcome = OutcomePassStatError
	}
	if g.observer != nil {
		g.observer(ev)
	}
	return refusal
}

// CheckJSON is [SearchGuard.Check] for arguments still in JSON. Arguments that are not a
// JSON object pass: the host rejects such a call itself.
func (g *SearchGuard) CheckJSON(tool string, args json.RawMessage, projectDir string) error {
	if tool != "grep" && tool != "glob" {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return nil
	}
	return g.Check(tool, m, projectDir)
}

// Resolve returns the path the host would search for raw (spec S4): an absolute raw as
// given, byte for byte; otherwise Resolve(projectDir, raw) for host v2 or tool glob, and
// Join(projectDir, raw) for host v1 grep (which keeps a trailing separator). There is no
// trimming and no "~" expansion.
func (g *SearchGuard) Resolve(tool, projectDir, raw string) string {
	switch {
	case g.flavor.IsAbs(raw):
		return raw
	case g.host == HostV2 || tool == "glob":
		return g.flavor.Resolve(projectDir, raw)
	}
	return g.flavor.Join(projectDir, raw)
}
