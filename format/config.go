package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
)

// Config says which formatters may run. Its zero value is automatic mode.
//
// It reads OpenCode's "formatter" setting as is (see [Config.UnmarshalJSON]): false, true, or
// an object of per-name overrides.
type Config struct {
	// Enabled: nil is automatic mode (formatters the project declares with a configuration
	// file or a manifest entry, plus in-process gofmt); false turns formatting off; true also
	// enables formatters found only as a binary on PATH.
	Enabled *bool
	// Overrides by formatter name. An override of a built-in without Args keeps its detection
	// and only changes the fields it sets, and it counts as an opt-in; with Args detection is
	// off and the formatter always applies. A new name with Args and Extensions adds a custom
	// formatter.
	Overrides map[string]Override
	// Chain maps a suffix (".md") to formatter names run in that order on matching files. It
	// is the only way to run more than one formatter on a file.
	Chain map[string][]string
	// Probes allows detection to run a formatter's probe command (for example "air --help").
	// Off by default: detection then starts no process.
	Probes bool
}

// Override changes one formatter. Field names follow OpenCode's configuration in JSON
// (command, environment); timeout, priority and mode are extras.
type Override struct {
	Disabled   bool              `json:"disabled,omitempty"`
	Args       []string          `json:"command,omitempty"`
	Extensions []string          `json:"extensions,omitempty"`
	Env        map[string]string `json:"environment,omitempty"`
	Timeout    Duration          `json:"timeout,omitempty"`
	Priority   *int              `json:"priority,omitempty"`
	Mode       *Mode             `json:"mode,omitempty"`
}

// Duration is a time.Duration that reads "5s" or a number of milliseconds from JSON, and
// writes the string form.
type Duration time.Duration

// MarshalJSON writes the duration as a string such as "5s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads "5s" or a number of milliseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var ms float64
	if err := json.Unmarshal(b, &ms); err == nil {
		*d = Duration(time.Duration(ms * float64(time.Millisecond)))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return &Error{Kind: ErrConfig, Msg: `timeout must be a duration string such as "5s" or a number of milliseconds`}
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return &Error{Kind: ErrConfig, Msg: fmt.Sprintf(`timeout %q is not a valid duration: write it like "5s" or "500ms"`, s)}
	}
	*d = Duration(v)
	return nil
}

// On returns a pointer to true, for Config.Enabled: every formatter, including those found
// only as a binary on PATH.
func On() *bool { t := true; return &t }

// Off returns a pointer to false, for Config.Enabled: no formatting at all.
func Off() *bool { f := false; return &f }

// UnmarshalJSON reads OpenCode's "formatter" value:
//
//	false                                       formatting off
//	true                                        every built-in, with its detection
//	{"<name>": {"disabled": true}, …}           every built-in, with per-name overrides
//	null                                        automatic mode (the extension of this package)
//
// An object turns every built-in on (Enabled = true), as in OpenCode. Besides formatter
// names it may hold two keys of our own: "chain" (an object from suffix to names; all its
// keys start with a dot) and "auto": true, which keeps automatic mode for the built-ins
// while the overrides apply. Unknown fields in an override are refused, so a typo is not
// silently ignored.
func (c *Config) UnmarshalJSON(b []byte) error {
	*c = Config{}
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "null", "":
		return nil
	case "true":
		c.Enabled = On()
		return nil
	case "false":
		c.Enabled = Off()
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return &Error{Kind: ErrConfig, Msg: "the formatter setting must be true, false or an object of formatter names", Err: err}
	}
	c.Enabled = On()
	if v, ok := raw["auto"]; ok && string(bytes.TrimSpace(v)) == "true" {
		c.Enabled = nil
		delete(raw, "auto")
	}
	if v, ok := raw["chain"]; ok {
		var chain map[string][]string
		if json.Unmarshal(v, &chain) == nil && len(chain) > 0 && allDotKeys(chain) {
			c.Chain = chain
			delete(raw, "chain")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		dec := json.NewDecoder(bytes.NewReader(raw[name]))
		dec.DisallowUnknownFields()
		var o Override
		if err := dec.Decode(&o); err != nil {
			return &Error{Kind: ErrConfig, Formatter: name, Msg: "bad override (fields: disabled, command, extensions, environment, timeout, priority, mode): " + err.Error()}
		}
		if name == "" {
			return &Error{Kind: ErrConfig, Msg: "a formatter override has an empty name"}
		}
		// An empty list or map means the same as an absent one.
		if len(o.Args) == 0 {
			o.Args = nil
		}
		if len(o.Extensions) == 0 {
			o.Extensions = nil
		}
		if len(o.Env) == 0 {
			o.Env = nil
		}
		if c.Overrides == nil {
			c.Overrides = map[string]Override{}
		}
		c.Overrides[name] = o
	}
	return nil
}

func allDotKeys(m map[string][]string) bool {
	for k := range m {
		if !strings.HasPrefix(k, ".") {
			return false
		}
	}
	return true
}

// MarshalJSON writes the configuration in the shape UnmarshalJSON reads.
func (c Config) MarshalJSON() ([]byte, error) {
	if len(c.Overrides) == 0 && len(c.Chain) == 0 {
		if c.Enabled == nil {
			return []byte("null"), nil
		}
		return json.Marshal(*c.Enabled)
	}
	m := map[string]any{}
	for k, v := range c.Overrides {
		m[k] = v
	}
	if len(c.Chain) > 0 {
		m["chain"] = c.Chain
	}
	if c.Enabled == nil {
		m["auto"] = true
	}
	return json.Marshal(m)
}

// GoString makes table-test failures readable.
func (c Config) GoString() string {
	en := "auto"
	if c.Enabled != nil {
		en = fmt.Sprint(*c.Enabled)
	}
	return fmt.Sprintf("format.Config{Enabled: %s, Overrides: %v, Chain: %v, Probes: %v}", en, c.Overrides, c.Chain, c.Probes)
}

// Validate reports configuration the registry cannot use: an override for an unknown name
// without command and extensions, a command without a {file} or $FILE placeholder in
// in-place mode, or a chain naming an unknown formatter. It returns an [*Error] of kind
// [ErrConfig] or nil.
func (c Config) Validate(reg []Def) error {
	known := map[string]bool{}
	for _, d := range reg {
		known[d.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(c.Overrides)) {
		o := c.Overrides[name]
		if !known[name] && !o.Disabled && (len(o.Args) == 0 || len(o.Extensions) == 0) {
			return &Error{Kind: ErrConfig, Formatter: name, Msg: "unknown formatter: a custom formatter needs both \"command\" and \"extensions\""}
		}
		if len(o.Args) > 0 && (o.Mode == nil || *o.Mode == InPlace) && !slices.ContainsFunc(o.Args, hasFilePlaceholder) {
			return &Error{Kind: ErrConfig, Formatter: name, Msg: "the command has no $FILE or {file} placeholder: add one, or set \"mode\": \"stdin\" for a command that reads stdin"}
		}
		for _, e := range o.Extensions {
			if !strings.HasPrefix(e, ".") {
				return &Error{Kind: ErrConfig, Formatter: name, Msg: fmt.Sprintf("extension %q must start with a dot", e)}
			}
		}
	}
	for _, ext := range slices.Sorted(maps.Keys(c.Chain)) {
		for _, name := range c.Chain[ext] {
			if !known[name] && len(c.Overrides[name].Args) == 0 {
				return &Error{Kind: ErrConfig, Formatter: name, Msg: fmt.Sprintf("chain for %s names an unknown formatter", ext)}
			}
		}
	}
	return nil
}

func hasFilePlaceholder(a string) bool {
	return strings.Contains(a, "{file}") || strings.Contains(a, "$FILE")
}

// effective applies the overrides to a copy of reg and returns the registry detection uses,
// and the set of names whose detection is off (an override with a command).
func effective(cfg Config, reg []Def) (defs []Def, forced map[string]bool) {
	defs = make([]Def, 0, len(reg)+len(cfg.Overrides))
	forced = map[string]bool{}
	seen := map[string]bool{}
	for _, d := range reg {
		seen[d.Name] = true
		if o, ok := cfg.Overrides[d.Name]; ok {
			d = applyOverride(d, o)
			if len(o.Args) > 0 {
				forced[d.Name] = true
			}
		}
		defs = append(defs, d)
	}
	names := slices.Collect(maps.Keys(cfg.Overrides))
	sort.Strings(names)
	for _, name := range names {
		o := cfg.Overrides[name]
		if seen[name] || len(o.Args) == 0 || len(o.Extensions) == 0 {
			continue
		}
		d := applyOverride(Def{Name: name, Group: name, Mode: InPlace}, o)
		forced[name] = true
		defs = append(defs, d)
	}
	return defs, forced
}

func applyOverride(d Def, o Override) Def {
	if len(o.Args) > 0 {
		d.Args = slices.Clone(o.Args)
		d.InProcess = ""
		d.Evidence = nil
		d.Mode = InPlace
	}
	if o.Mode != nil {
		d.Mode = *o.Mode
	}
	if len(o.Extensions) > 0 {
		d.Extensions = slices.Clone(o.Extensions)
	}
	if len(o.Env) > 0 {
		env := maps.Clone(d.Env)
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, o.Env)
		d.Env = env
	}
	if o.Timeout > 0 {
		d.Timeout = time.Duration(o.Timeout)
	}
	if o.Priority != nil {
		d.Priority = *o.Priority
	}
	return d
}
