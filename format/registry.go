package format

import (
	"encoding/json"
	"fmt"
	"time"
)

// Mode says how a formatter gets the file's content.
type Mode int

const (
	// Stdin: the content goes to the formatter's stdin and the formatted text comes back on
	// its stdout. The formatter never touches a file. This is the default where the tool
	// supports it.
	Stdin Mode = iota
	// InPlace: the formatter rewrites a temporary copy of the file, made next to it so that
	// the tool finds the same configuration; the copy is read back and removed.
	InPlace
)

// String returns "stdin" or "inplace".
func (m Mode) String() string {
	switch m {
	case Stdin:
		return "stdin"
	case InPlace:
		return "inplace"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// MarshalJSON writes the mode as "stdin" or "inplace".
func (m Mode) MarshalJSON() ([]byte, error) { return json.Marshal(m.String()) }

// UnmarshalJSON reads "stdin" or "inplace" ("in-place" and "in_place" are accepted too).
func (m *Mode) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return &Error{Kind: ErrConfig, Msg: `mode must be the string "stdin" or "inplace"`, Err: err}
	}
	switch s {
	case "stdin":
		*m = Stdin
	case "inplace", "in-place", "in_place":
		*m = InPlace
	default:
		return &Error{Kind: ErrConfig, Msg: fmt.Sprintf(`unknown mode %q: use "stdin" or "inplace"`, s)}
	}
	return nil
}

// FileSubstring is evidence that a file found by walking up contains a text. An empty Substr
// means the file only has to exist (a manifest such as Cargo.toml).
type FileSubstring struct {
	File   string `json:"file"`
	Substr string `json:"substr,omitempty"`
}

// Probe runs a command during detection and wants its output to contain Want. It is the
// only detection that starts a process, and it runs only when the configuration enables
// probes.
type Probe struct {
	Args []string `json:"args"`
	Want string   `json:"want,omitempty"`
}

// Evidence is one way a formatter can be found in a project. Every field that is set must
// hold; a [Def] lists alternatives, any one of which suffices.
//
// The strength of a piece of evidence decides between formatters that could both format a
// file: a configuration file (ConfigFiles) beats a manifest entry (FileContains, NPMDep,
// ComposerDep), which beats a bare binary. Evidence that is only a binary (and perhaps a
// probe) never enables a formatter in automatic mode.
type Evidence struct {
	// Binary must resolve with the environment's LookPath ("" = none needed). With
	// NodeModules set, node_modules/.bin/<Binary> found by walking up is tried first.
	Binary      string `json:"binary,omitempty"`
	NodeModules bool   `json:"node_modules,omitempty"`
	// ConfigFiles: any one of these names found by walking up from the file to the root.
	ConfigFiles []string `json:"config_files,omitempty"`
	// FileContains: each file, found by walking up, must contain its text.
	FileContains []FileSubstring `json:"file_contains,omitempty"`
	// NPMDep: a package.json found by walking up lists this name in dependencies or
	// devDependencies.
	NPMDep string `json:"npm_dep,omitempty"`
	// ComposerDep: a composer.json found by walking up lists this name in require or
	// require-dev.
	ComposerDep string `json:"composer_dep,omitempty"`
	// EnvVar: this environment variable is set to a non-empty value.
	EnvVar string `json:"env_var,omitempty"`
	// Probe runs only when Config.Probes is true; without it this evidence fails.
	Probe *Probe `json:"probe,omitempty"`
}

// InProcessGo is the value of [Def.InProcess] for the built-in Go formatter.
const InProcessGo = "go/format"

// Def is one formatter of the registry. The registry is plain data: detection and running
// read these fields and nothing else. Its JSON form is the registry's dump format (see the
// golden file of the tests); a registry of one's own can be read with encoding/json into a
// []Def.
type Def struct {
	Name       string   `json:"name"`
	Extensions []string `json:"extensions,omitempty"` // suffixes with the dot, matched lower-cased, longest first: ".html.erb"
	Filenames  []string `json:"filenames,omitempty"`  // exact base names for files without a known suffix: "Dockerfile"
	// Args is the argv. Placeholders: {file} (the file, or its temporary copy in InPlace
	// mode; OpenCode's $FILE means the same), {dir} (its directory), {root} (the root) and
	// {edition} (the Rust edition from the nearest Cargo.toml, default 2021).
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"` // added to the inherited environment
	Mode       Mode              `json:"mode"`
	Evidence   []Evidence        `json:"evidence,omitempty"` // alternatives; none = always found
	Group      string            `json:"group,omitempty"`    // conflict group: formatters of one group never both run
	Priority   int               `json:"priority,omitempty"` // higher wins a tie of evidence strength
	NeedsOptIn bool              `json:"needs_opt_in,omitempty"`
	Timeout    time.Duration     `json:"timeout,omitempty"` // 0 = the runner's default
	InProcess  string            `json:"in_process,omitempty"`
}

var (
	jsExt = []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"}
	// prettierExt is OpenCode's list without .toml, .xml, .sass and .svelte, which prettier
	// cannot format without plugins.
	prettierExt = append(append([]string{}, jsExt...), ".html", ".htm", ".css", ".scss", ".less",
		".vue", ".json", ".jsonc", ".yaml", ".yml", ".md", ".mdx", ".graphql", ".gql")
	biomeExt = append(append([]string{}, jsExt...), ".json", ".jsonc", ".css", ".graphql", ".gql")
	rubyExt  = []string{".rb", ".rake", ".gemspec", ".ru"}
)

// onPath is the evidence "the binary is on PATH", nothing else.
func onPath(bin string) []Evidence { return []Evidence{{Binary: bin}} }

// pathOnly is a formatter found only as a binary on PATH: it needs an opt-in.
func pathOnly(name string, ext []string, args ...string) Def {
	return Def{Name: name, Extensions: ext, Args: args, Mode: InPlace, Evidence: onPath(args[0]), Group: name, NeedsOptIn: true}
}

// Builtins returns the built-in registry, a fresh copy each call (callers may change it).
// A golden JSON dump of it is kept under testdata, so a change shows up as a reviewable
// diff.
func Builtins() []Def {
	reg := []Def{
		{Name: "gofmt", Extensions: []string{".go"}, Args: []string{"gofmt"}, Mode: Stdin, Group: "go", Priority: 10, InProcess: InProcessGo},
		{
			Name: "biome", Extensions: biomeExt, Args: []string{"biome", "format", "--stdin-file-path={file}"},
			Env: map[string]string{"BUN_BE_BUN": "1"}, Mode: Stdin, Group: "js", Priority: 20,
			Evidence: []Evidence{{Binary: "biome", NodeModules: true, ConfigFiles: []string{"biome.json", "biome.jsonc", ".biome.json", ".biome.jsonc"}}},
		},
		{
			Name: "prettier", Extensions: prettierExt, Args: []string{"prettier", "--stdin-filepath", "{file}"},
			Env: map[string]string{"BUN_BE_BUN": "1"}, Mode: Stdin, Group: "js", Priority: 10,
			Evidence: []Evidence{
				{Binary: "prettier", NodeModules: true, ConfigFiles: []string{".prettierrc", ".prettierrc.json", ".prettierrc.yaml", ".prettierrc.yml", ".prettierrc.json5", ".prettierrc.js", ".prettierrc.cjs", ".prettierrc.mjs", ".prettierrc.toml", "prettier.config.js", "prettier.config.cjs", "prettier.config.mjs"}},
				{Binary: "prettier", NodeModules: true, NPMDep: "prettier"},
			},
		},
		{
			Name: "oxfmt", Extensions: jsExt, Args: []string{"oxfmt", "{file}"},
			Env: map[string]string{"BUN_BE_BUN": "1"}, Mode: InPlace, Group: "js", Priority: 0,
			Evidence: []Evidence{{Binary: "oxfmt", NodeModules: true, NPMDep: "oxfmt", EnvVar: "HARNESSKIT_FORMAT_OXFMT"}},
		},
		{
			Name: "clang-format", Extensions: []string{".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++", ".ino"},
			Args: []string{"clang-format", "--assume-filename={file}"}, Mode: Stdin, Group: "c",
			Evidence: []Evidence{{Binary: "clang-format", ConfigFiles: []string{".clang-format", "_clang-format"}}},
		},
		{
			Name: "shfmt", Extensions: []string{".sh", ".bash"}, Args: []string{"shfmt", "--filename", "{file}"},
			Mode: Stdin, Group: "sh", Evidence: onPath("shfmt"), NeedsOptIn: true,
		},
		{
			Name: "ruff", Extensions: []string{".py", ".pyi"}, Args: []string{"ruff", "format", "--stdin-filename", "{file}", "-"},
			Mode: Stdin, Group: "python", Priority: 20,
			Evidence: []Evidence{
				{Binary: "ruff", ConfigFiles: []string{"ruff.toml", ".ruff.toml"}},
				{Binary: "ruff", FileContains: []FileSubstring{{File: "pyproject.toml", Substr: "[tool.ruff"}}},
				{Binary: "ruff", FileContains: []FileSubstring{{File: "requirements.txt", Substr: "ruff"}}},
				{Binary: "ruff", FileContains: []FileSubstring{{File: "Pipfile", Substr: "ruff"}}},
				{Binary: "ruff", FileContains: []FileSubstring{{File: "pyproject.toml", Substr: "ruff"}}},
			},
		},
		{
			Name: "black", Extensions: []string{".py", ".pyi"}, Args: []string{"black", "-q", "--stdin-filename", "{file}", "-"},
			Mode: Stdin, Group: "python", Priority: 10,
			Evidence: []Evidence{
				{Binary: "black", FileContains: []FileSubstring{{File: "pyproject.toml", Substr: "[tool.black"}}},
				{Binary: "black", FileContains: []FileSubstring{{File: "requirements.txt", Substr: "black"}}},
			},
		},
		{
			Name: "uv", Extensions: []string{".py", ".pyi"}, Args: []string{"uv", "format", "--", "{file}"},
			Mode: InPlace, Group: "python", Priority: 0, NeedsOptIn: true,
			Evidence: []Evidence{{Binary: "uv", Probe: &Probe{Args: []string{"uv", "format", "--help"}}}},
		},
		{
			Name: "rustfmt", Extensions: []string{".rs"}, Args: []string{"rustfmt", "--edition", "{edition}"},
			Mode: Stdin, Group: "rust",
			Evidence: []Evidence{
				{Binary: "rustfmt", ConfigFiles: []string{"rustfmt.toml", ".rustfmt.toml"}},
				{Binary: "rustfmt", FileContains: []FileSubstring{{File: "Cargo.toml"}}},
			},
		},
		{Name: "terraform", Extensions: []string{".tf", ".tfvars"}, Args: []string{"terraform", "fmt", "-"}, Mode: Stdin, Group: "terraform", Evidence: onPath("terraform"), NeedsOptIn: true},
		{Name: "zig", Extensions: []string{".zig", ".zon"}, Args: []string{"zig", "fmt", "--stdin"}, Mode: Stdin, Group: "zig", Evidence: onPath("zig"), NeedsOptIn: true},
		{
			Name: "stylua", Extensions: []string{".lua"}, Args: []string{"stylua", "--stdin-filepath", "{file}", "-"}, Mode: Stdin, Group: "lua",
			Evidence: []Evidence{{Binary: "stylua", ConfigFiles: []string{"stylua.toml", ".stylua.toml"}}, {Binary: "stylua"}},
		},
		{
			Name: "ocamlformat", Extensions: []string{".ml", ".mli"}, Args: []string{"ocamlformat", "-i", "{file}"}, Mode: InPlace, Group: "ocaml",
			Evidence: []Evidence{{Binary: "ocamlformat", ConfigFiles: []string{".ocamlformat"}}},
		},
		{
			Name: "scalafmt", Extensions: []string{".scala"}, Args: []string{"scalafmt", "{file}"}, Mode: InPlace, Group: "scala",
			Evidence: []Evidence{{Binary: "scalafmt", ConfigFiles: []string{".scalafmt.conf"}}},
		},
		{
			Name: "pint", Extensions: []string{".php"}, Args: []string{"{root}/vendor/bin/pint", "{file}"}, Mode: InPlace, Group: "php",
			Evidence: []Evidence{{ComposerDep: "laravel/pint"}},
		},
		{
			Name: "rubocop", Extensions: rubyExt, Args: []string{"rubocop", "--autocorrect", "{file}"}, Mode: InPlace, Group: "ruby", Priority: 10,
			Evidence: []Evidence{{Binary: "rubocop", ConfigFiles: []string{".rubocop.yml"}}, {Binary: "rubocop"}},
		},
		{
			Name: "standardrb", Extensions: rubyExt, Args: []string{"standardrb", "--fix", "{file}"}, Mode: InPlace, Group: "ruby", Priority: 0,
			Evidence: []Evidence{{Binary: "standardrb", ConfigFiles: []string{".standard.yml"}}, {Binary: "standardrb"}},
		},
		{
			Name: "air", Extensions: []string{".r"}, Args: []string{"air", "format", "{file}"}, Mode: InPlace, Group: "r", NeedsOptIn: true,
			Evidence: []Evidence{{Binary: "air", Probe: &Probe{Args: []string{"air", "--help"}, Want: "R language"}}},
		},
		pathOnly("mix", []string{".ex", ".exs", ".eex", ".heex", ".leex", ".neex", ".sface"}, "mix", "format", "{file}"),
		pathOnly("ktlint", []string{".kt", ".kts"}, "ktlint", "-F", "{file}"),
		pathOnly("htmlbeautifier", []string{".erb", ".html.erb"}, "htmlbeautifier", "{file}"),
		pathOnly("dart", []string{".dart"}, "dart", "format", "{file}"),
		pathOnly("latexindent", []string{".tex"}, "latexindent", "-w", "-s", "{file}"),
		pathOnly("gleam", []string{".gleam"}, "gleam", "format", "{file}"),
		{Name: "nixfmt", Extensions: []string{".nix"}, Args: []string{"nixfmt"}, Mode: Stdin, Group: "nixfmt", Evidence: onPath("nixfmt"), NeedsOptIn: true},
		pathOnly("ormolu", []string{".hs"}, "ormolu", "-i", "{file}"),
		pathOnly("cljfmt", []string{".clj", ".cljs", ".cljc", ".edn"}, "cljfmt", "fix", "--quiet", "{file}"),
		pathOnly("dfmt", []string{".d"}, "dfmt", "-i", "{file}"),
		pathOnly("swiftformat", []string{".swift"}, "swiftformat", "{file}"),
		pathOnly("typst", []string{".typ", ".typc"}, "typst", "fmt", "{file}"),
		pathOnly("csharpier", []string{".cs"}, "dotnet-csharpier", "{file}"),
	}
	return reg
}
