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
	grep     string
	glob     string
	key      string
}

// A SearchOption configures [NewSearchGuard]: [WithHost], [WithObserver],
// [WithToolNames], [WithPathKey], and the options shared with [NewRescuer] ([WithFlavor],
// [WithStat]).
type SearchOption interface {
	applySearch(*searchConfig)
}

// A RescueOption configures [NewRescuer]: [WithFlavor] and [WithStat].
type RescueOption interface {
	applyRescue(*sharedConfig)
}

// A SharedOption configures both [NewSearchGuard] and [NewRescuer].
type SharedOption struct {
	apply func(*sharedConfig)
}

func (o SharedOption) applySearch(c *searchConfig) { o.apply(&c.sharedConfig) }
func (o SharedOption) applyRescue(c *sharedConfig) { o.apply(c) }

// searchOption is an option of [NewSearchGuard] alone.
type searchOption func(*searchConfig)

func (o searchOption) applySearch(c *searchConfig) { o(c) }

type sharedConfig struct {
	flavor Flavor
	stat   func(name string) error
}

type searchConfig struct {
	sharedConfig
	host     Host
	observer func(Event)
	grep     string
	glob     string
	key      string
}

// GoString makes the configuration readable in test failures.
func (c *searchConfig) GoString() string {
	name := "native"
	if c.flavor != nil {
		name = c.flavor.Name()
	}
	return fmt.Sprintf("searchConfig{host: %v, flavor: %s, stat: %v, observer: %v, tools: %q/%q, key: %q}",
		c.host, name, c.stat != nil, c.observer != nil, c.grep, c.glob, c.key)
}

// WithHost sets the host version whose resolution rules are mirrored. Default: [HostV1].
func WithHost(h Host) SearchOption { return searchOption(func(c *searchConfig) { c.host = h }) }

// WithFlavor sets the path rules. Default: [Native].
func WithFlavor(f Flavor) SharedOption {
	return SharedOption{func(c *sharedConfig) { c.flavor = f }}
}

// WithStat sets the function that checks a resolved path; it must follow symlinks like
// os.Stat and return errors that match fs.ErrNotExist and syscall.ENOTDIR with errors.Is.
// Default: os.Stat. With the Windows flavour on another OS, pass a fake.
func WithStat(stat func(name string) error) SharedOption {
	return SharedOption{func(c *sharedConfig) { c.stat = stat }}
}

// WithObserver receives one [Event] per checked call (calls that pass without looking
// produce none). It is called synchronously and must be safe for concurrent use if the
// guard is. Default: none.
func WithObserver(fn func(Event)) SearchOption {
	return searchOption(func(c *searchConfig) { c.observer = fn })
}

// WithToolNames names the host's two search tools: grep (a relative path is joined to the
// project directory on [HostV1], keeping a trailing separator) and glob (resolved). Names
// are matched exactly. Default: "grep" and "glob". An empty name leaves that default.
func WithToolNames(grep, glob string) SearchOption {
	return searchOption(func(c *searchConfig) {
		if grep != "" {
			c.grep = grep
		}
		if glob != "" {
			c.glob = glob
		}
	})
}

// WithPathKey names the argument that carries the search path. Default: "path". An
// empty key leaves the default.
func WithPathKey(key string) SearchOption {
	return searchOption(func(c *searchConfig) {
		if key != "" {
			c.key = key
		}
	})
}

func osStat(name string) error {
	_, err := os.Stat(name)
	return err
}

func (c *sharedConfig) defaults() {
	if c.flavor == nil {
		c.flavor = Native()
	}
	if c.stat == nil {
		c.stat = osStat
	}
}

// NewSearchGuard returns a search-path check. It does no I/O and starts no goroutines.
func NewSearchGuard(opts ...SearchOption) *SearchGuard {
	cfg := searchConfig{grep: "grep", glob: "glob", key: "path"}
	for _, o := range opts {
		if o != nil {
			o.applySearch(&cfg)
		}
	}
	cfg.defaults()
	return &SearchGuard{host: cfg.host, flavor: cfg.flavor, stat: cfg.stat, observer: cfg.observer,
		grep: cfg.grep, glob: cfg.glob, key: cfg.key}
}

// Check runs the pre-check for one tool call. args is the call's argument object and
// projectDir the host's project directory.
//
// It returns nil (pass) for every tool not named exactly "grep" or "glob" (or the names of
// [WithToolNames]), when args has no string "path" (or the key of [WithPathKey]) or it is
// "", when projectDir is "", when the resolved path exists, and when
// stat fails for any reason other than not-exist or not-a-directory (permissions, loops,
// I/O, a NUL byte): the guard never blocks on an environment error. Otherwise it returns an
// *[Error] of [KindMissing] or [KindNotDirectory] whose message tells the model what was
// resolved from what, and what to do. It never changes args and never confines the path.
func (g *SearchGuard) Check(tool string, args map[string]any, projectDir string) error {
	if tool != g.grep && tool != g.glob {
		return nil
	}
	raw, ok := args[g.key].(string)
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
	if tool != g.grep && tool != g.glob {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return nil
	}
	return g.Check(tool, m, projectDir)
}

// Resolve returns the path the host would search for raw: an absolute raw as given, byte
// for byte; otherwise Resolve(projectDir, raw) for host v2 or the glob tool, and
// Join(projectDir, raw) for host v1 grep (which keeps a trailing separator). There is no
// trimming and no "~" expansion.
func (g *SearchGuard) Resolve(tool, projectDir, raw string) string {
	switch {
	case g.flavor.IsAbs(raw):
		return raw
	case g.host == HostV2 || tool == g.glob:
		return g.flavor.Resolve(projectDir, raw)
	}
	return g.flavor.Join(projectDir, raw)
}
