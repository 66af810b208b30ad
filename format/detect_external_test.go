package format_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/harnesskit/harnesskit/format"
)

// fakePath is a LookPath that finds exactly the given names, under /fake/bin.
func fakePath(names ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(names, name) {
			return "/fake/bin/" + name, nil
		}
		return "", exec.ErrNotFound
	}
}

func memEnv(files map[string]string, bins ...string) format.Env {
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	return format.Env{Root: "/proj", FS: fsys, LookPath: fakePath(bins...), Getenv: func(string) string { return "" }}
}

// TestSelection is the selection table: for each project, the single formatter chosen, or
// none. It runs on fstest.MapFS with a fake PATH: detection reads nothing else.
func TestSelection(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		bins  []string
		cfg   string
		file  string
		want  string // the chosen formatter, "" = none
		why   string // substring of Plan.Why
	}{
		{name: "package.json with prettier", files: map[string]string{"package.json": `{"devDependencies":{"prettier":"3"}}`}, bins: []string{"prettier"}, file: "src/a.ts", want: "prettier", why: "package.json at ./ lists prettier"},
		{name: "prettier in node_modules/.bin wins over PATH", files: map[string]string{"package.json": `{"dependencies":{"prettier":"3"}}`, "node_modules/.bin/prettier": "#!"}, file: "a.css", want: "prettier", why: "prettier in node_modules/.bin at ./"},
		{name: "biome.json and a prettier dependency: biome", files: map[string]string{"package.json": `{"devDependencies":{"prettier":"3"}}`, "web/biome.json": "{}"}, bins: []string{"prettier", "biome"}, file: "web/src/a.ts", want: "biome", why: "found biome.json at web/"},
		{name: "biome.json outside the file's branch is not evidence", files: map[string]string{"package.json": `{"devDependencies":{"prettier":"3"}}`, "web/biome.json": "{}"}, bins: []string{"prettier", "biome"}, file: "api/a.ts", want: "prettier"},
		{name: "pyproject with tool.ruff and uv on PATH: ruff", files: map[string]string{"pyproject.toml": "[tool.ruff]\n"}, bins: []string{"ruff", "uv"}, file: "a.py", want: "ruff", why: "pyproject.toml at ./ mentions [tool.ruff"},
		{name: "ruff.toml beats a black section", files: map[string]string{"pyproject.toml": "[tool.black]\n", "ruff.toml": ""}, bins: []string{"ruff", "black"}, file: "a.py", want: "ruff", why: "found ruff.toml at ./"},
		{name: "black from its pyproject section", files: map[string]string{"pyproject.toml": "[tool.black]\n"}, bins: []string{"ruff", "black"}, file: "a.py", want: "black"},
		{name: "C file without .clang-format: none", files: map[string]string{"a.c": ""}, bins: []string{"clang-format"}, file: "a.c", want: ""},
		{name: "_clang-format is recognised", files: map[string]string{"_clang-format": ""}, bins: []string{"clang-format"}, file: "x/y/a.cpp", want: "clang-format", why: "found _clang-format at ./"},
		{name: "no evidence and formatter unset: none", files: map[string]string{}, bins: []string{"ruff", "shfmt", "rustfmt"}, file: "a.py", want: ""},
		{name: "rust crate: rustfmt via Cargo.toml", files: map[string]string{"Cargo.toml": "[package]\nedition = \"2024\"\n"}, bins: []string{"rustfmt"}, file: "src/main.rs", want: "rustfmt", why: "found Cargo.toml at ./"},
		{name: "pint from composer.json", files: map[string]string{"composer.json": `{"require-dev":{"laravel/pint":"1"}}`}, file: "app/x.php", want: "pint"},
		{name: "upper-case suffix matches", files: map[string]string{}, file: "Main.GO", want: "gofmt"},
		{name: "rubocop config beats standardrb", files: map[string]string{".rubocop.yml": ""}, bins: []string{"rubocop", "standardrb"}, file: "a.rb", want: "rubocop"},
		{name: "enabled: rubocop and standardrb on PATH, priority decides", files: map[string]string{}, bins: []string{"rubocop", "standardrb"}, cfg: "true", file: "a.rb", want: "rubocop", why: "rubocop on PATH"},
		{name: "disabled winner leaves the other", files: map[string]string{"package.json": `{"devDependencies":{"prettier":"3"}}`, "biome.json": "{}"}, bins: []string{"prettier", "biome"}, cfg: `{"biome":{"disabled":true},"auto":true}`, file: "a.ts", want: "prettier"},
		{name: "oxfmt needs its flag", files: map[string]string{"package.json": `{"devDependencies":{"oxfmt":"1"}}`}, bins: []string{"oxfmt"}, file: "a.ts", want: ""},
		{name: "file outside the root: only in-process gofmt", files: map[string]string{}, file: "/elsewhere/a.go", want: "gofmt"},
		{name: "file outside the root: no project evidence", files: map[string]string{".clang-format": ""}, bins: []string{"clang-format"}, file: "/elsewhere/a.c", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := memEnv(tc.files, tc.bins...)
			var cfg format.Config
			if tc.cfg != "" {
				if err := json.Unmarshal([]byte(tc.cfg), &cfg); err != nil {
					t.Fatal(err)
				}
			}
			plans, skipped := format.Detect(env, cfg, format.Builtins(), tc.file)
			if len(plans) > 1 {
				t.Fatalf("%d plans: at most one formatter per file", len(plans))
			}
			got := ""
			if len(plans) == 1 {
				got = plans[0].Def.Name
				if !strings.Contains(plans[0].Why, tc.why) {
					t.Errorf("Why = %q, want it to contain %q", plans[0].Why, tc.why)
				}
			}
			if got != tc.want {
				t.Errorf("chose %q, want %q; skipped %v", got, tc.want, skipped)
			}
		})
	}
}

// TestRustEdition checks the {edition} placeholder: from the nearest Cargo.toml, default 2021.
func TestRustEdition(t *testing.T) {
	for _, tc := range []struct{ name, cargo, want string }{
		{name: "edition 2024", cargo: "[package]\nname = \"x\"\nedition = \"2024\" # new\n", want: "2024"},
		{name: "no edition line", cargo: "[package]\nname = \"x\"\n", want: "2021"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := memEnv(map[string]string{"Cargo.toml": tc.cargo}, "rustfmt")
			plans, _ := format.Detect(env, format.Config{}, format.Builtins(), "src/lib.rs")
			if len(plans) != 1 || !slices.Equal(plans[0].Argv, []string{"/fake/bin/rustfmt", "--edition", tc.want}) {
				t.Errorf("plans %+v, want rustfmt --edition %s", plans, tc.want)
			}
		})
	}
}

// TestChain: a configured chain runs several formatters in its order, and only those.
func TestChain(t *testing.T) {
	env := memEnv(map[string]string{"package.json": `{"devDependencies":{"prettier":"3"}}`, "biome.json": "{}"}, "prettier", "biome")
	var cfg format.Config
	if err := json.Unmarshal([]byte(`{"auto": true, "chain": {".ts": ["prettier", "biome"]}}`), &cfg); err != nil {
		t.Fatal(err)
	}
	plans, skipped := format.Detect(env, cfg, format.Builtins(), "a.ts")
	var names []string
	for _, p := range plans {
		names = append(names, p.Def.Name)
	}
	if !slices.Equal(names, []string{"prettier", "biome"}) {
		t.Errorf("chain ran %v, want [prettier biome]; skipped %v", names, skipped)
	}
	if i := slices.IndexFunc(skipped, func(s format.Skip) bool { return s.Name == "oxfmt" }); i < 0 || !strings.Contains(skipped[i].Reason, "not in the configured chain") {
		t.Errorf("oxfmt skip: %v", skipped)
	}
}

// countFS counts Stat and Open calls on an fs.FS.
type countFS struct {
	fs.FS
	n atomic.Int64
}

func (c *countFS) Open(name string) (fs.File, error) { c.n.Add(1); return c.FS.Open(name) }
func (c *countFS) Stat(name string) (fs.FileInfo, error) {
	c.n.Add(1)
	return fs.Stat(c.FS, name)
}

// TestDetectionCost: a cold detection makes at most depth × evidence-files stat calls and
// runs no process; a warm one (with a Cache) makes none, and Invalidate makes the next one
// see a new file.
func TestDetectionCost(t *testing.T) {
	fsys := &countFS{FS: fstest.MapFS{"a/b/c/x.c": {Data: []byte("int x;\n")}}}
	probes := 0
	env := format.Env{Root: "/proj", FS: fsys, LookPath: fakePath("clang-format"), Getenv: func(string) string { return "" },
		Cache: format.NewCache(), RunProbe: func([]string) ([]byte, error) { probes++; return nil, errors.New("no") }}
	plans, _ := format.Detect(env, format.Config{}, format.Builtins(), "a/b/c/x.c")
	if len(plans) != 0 {
		t.Fatalf("plans %v, want none", plans)
	}
	// clang-format: 2 config names × 4 directories (a/b/c, a/b, a, .).
	if got, limit := fsys.n.Load(), int64(2*4); got > limit {
		t.Errorf("cold detection made %d stat calls, limit %d", got, limit)
	}
	fsys.n.Store(0)
	format.Detect(env, format.Config{}, format.Builtins(), "a/b/c/x.c")
	if got := fsys.n.Load(); got != 0 {
		t.Errorf("warm detection made %d stat calls, want 0", got)
	}
	fsys.FS.(fstest.MapFS)["a/.clang-format"] = &fstest.MapFile{}
	env.Cache.Invalidate("a/.clang-format")
	plans, _ = format.Detect(env, format.Config{}, format.Builtins(), "a/b/c/x.c")
	if len(plans) != 1 || plans[0].Why != "found .clang-format at a/, clang-format on PATH" {
		t.Errorf("after Invalidate: plans %+v", plans)
	}
	if probes != 0 {
		t.Errorf("detection ran %d probes with probes off", probes)
	}
}

// TestProbe: a probe runs only when the configuration allows probes, and its output decides.
func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name   string
		probes bool
		output string
		want   string
	}{
		{name: "probes off", probes: false, output: "Air: An R language formatter", want: ""},
		{name: "probe confirms", probes: true, output: "Air: An R language formatter", want: "air"},
		{name: "probe finds the Go hot-reload air", probes: true, output: "air: live reload for Go apps", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := memEnv(nil, "air")
			var ran [][]string
			env.RunProbe = func(argv []string) ([]byte, error) { ran = append(ran, argv); return []byte(tc.output), nil }
			cfg := format.Config{Enabled: format.On(), Probes: tc.probes}
			plans, skipped := format.Detect(env, cfg, format.Builtins(), "analysis.R")
			got := ""
			if len(plans) == 1 {
				got = plans[0].Def.Name
			}
			if got != tc.want {
				t.Errorf("chose %q, want %q (skipped %v)", got, tc.want, skipped)
			}
			if !tc.probes && len(ran) > 0 {
				t.Errorf("ran probes %v with probes off", ran)
			}
		})
	}
}

// TestConfigJSON reads OpenCode's formatter setting as is, plus our extras.
func TestConfigJSON(t *testing.T) {
	five, two := 5, format.InPlace
	tests := []struct {
		name, in string
		want     format.Config
		wantErr  string
	}{
		{name: "absent (null) is automatic", in: `null`, want: format.Config{}},
		{name: "false", in: `false`, want: format.Config{Enabled: format.Off()}},
		{name: "true", in: `true`, want: format.Config{Enabled: format.On()}},
		{name: "disable one", in: `{"prettier": {"disabled": true}}`, want: format.Config{Enabled: format.On(), Overrides: map[string]format.Override{"prettier": {Disabled: true}}}},
		{name: "custom deno from the OpenCode docs", in: `{"deno": {"command": ["deno", "fmt", "$FILE"], "extensions": [".md"], "environment": {"NO_COLOR": "1"}}}`,
			want: format.Config{Enabled: format.On(), Overrides: map[string]format.Override{"deno": {Args: []string{"deno", "fmt", "$FILE"}, Extensions: []string{".md"}, Env: map[string]string{"NO_COLOR": "1"}}}}},
		{name: "extras and chain", in: `{"auto": true, "shfmt": {"timeout": "2s", "priority": 5, "mode": "inplace"}, "chain": {".ts": ["prettier"]}}`,
			want: format.Config{Overrides: map[string]format.Override{"shfmt": {Timeout: format.Duration(2e9), Priority: &five, Mode: &two}}, Chain: map[string][]string{".ts": {"prettier"}}}},
		{name: "timeout in milliseconds", in: `{"shfmt": {"timeout": 1500}}`, want: format.Config{Enabled: format.On(), Overrides: map[string]format.Override{"shfmt": {Timeout: format.Duration(1.5e9)}}}},
		{name: "a formatter named chain is an override", in: `{"chain": {"command": ["chain", "$FILE"], "extensions": [".x"]}}`,
			want: format.Config{Enabled: format.On(), Overrides: map[string]format.Override{"chain": {Args: []string{"chain", "$FILE"}, Extensions: []string{".x"}}}}},
		{name: "typo in a field", in: `{"prettier": {"disable": true}}`, wantErr: `unknown field "disable"`},
		{name: "a string", in: `"yes"`, wantErr: "must be true, false or an object"},
		{name: "bad timeout", in: `{"shfmt": {"timeout": "soon"}}`, wantErr: `timeout "soon" is not a valid duration`},
		{name: "bad mode", in: `{"shfmt": {"mode": "sideways"}}`, wantErr: `unknown mode "sideways"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c format.Config
			err := json.Unmarshal([]byte(tc.in), &c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, format.ErrConfig) {
					t.Fatalf("err = %v, want ErrConfig mentioning %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			// Writing it back and reading it again gives the same configuration.
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var again format.Config
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatalf("re-reading %s: %v", b, err)
			}
			if diff := cmp.Diff(c, again); diff != "" {
				t.Errorf("round trip through %s (-first +second):\n%s", b, diff)
			}
		})
	}
}

// TestConfigValidate: configuration the registry cannot use is refused with a message.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{name: "unknown name without command", in: `{"deno": {"extensions": [".md"]}}`, want: "custom formatter needs both"},
		{name: "command without a file placeholder", in: `{"deno": {"command": ["deno", "fmt"], "extensions": [".md"]}}`, want: "no $FILE or {file} placeholder"},
		{name: "extension without a dot", in: `{"deno": {"command": ["deno", "$FILE"], "extensions": ["md"]}}`, want: `extension "md" must start with a dot`},
		{name: "chain with an unknown name", in: `{"chain": {".md": ["nope"]}}`, want: "names an unknown formatter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c format.Config
			if err := json.Unmarshal([]byte(tc.in), &c); err != nil {
				t.Fatal(err)
			}
			err := c.Validate(format.Builtins())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, format.ErrConfig) {
				t.Errorf("Validate = %v, want ErrConfig mentioning %q", err, tc.want)
			}
		})
	}
}

// TestDetectRootedPathWithoutDrive: on Windows `\x\a.go` and `/x/a.go` are rooted on the
// current drive without naming it; Detect used to walk up from "/" forever (23 GB). They are
// read on the root's drive; everywhere, Detect returns (a hang fails the test after a minute
// instead of eating memory).
func TestDetectRootedPathWithoutDrive(t *testing.T) {
	root := "/x"
	if runtime.GOOS == "windows" {
		root = `C:\x`
	}
	env := format.Env{Root: root, FS: fstest.MapFS{"go.mod": {Data: []byte("module x\n")}}, LookPath: fakePath(), Getenv: func(string) string { return "" }}
	for _, p := range []string{`\x\a.go`, `/x/a.go`, `\a.go`, `/`, `\`, `C:a.go`} {
		t.Run(p, func(t *testing.T) {
			done := make(chan []format.Plan, 1)
			go func() {
				plans, _ := format.Detect(env, format.Config{}, format.Builtins(), p)
				done <- plans
			}()
			select {
			case plans := <-done:
				if strings.HasSuffix(p, "a.go") && p != "C:a.go" && (len(plans) != 1 || plans[0].Def.Name != "gofmt") {
					t.Errorf("plans = %v, want gofmt", plans)
				}
			case <-time.After(time.Minute):
				t.Fatalf("Detect(%q) did not return", p)
			}
		})
	}
}
