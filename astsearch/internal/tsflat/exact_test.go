//go:build cgo

package tsflat

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// grammarSources says where each language's grammar.json is: the module and the
// directory inside it.
var grammarSources = map[string][2]string{
	"bash":       {"github.com/tree-sitter/tree-sitter-bash", "src"},
	"c":          {"github.com/tree-sitter/tree-sitter-c", "src"},
	"cpp":        {"github.com/tree-sitter/tree-sitter-cpp", "src"},
	"csharp":     {"github.com/tree-sitter/tree-sitter-c-sharp", "src"},
	"css":        {"github.com/tree-sitter/tree-sitter-css", "src"},
	"elixir":     {"github.com/alexaandru/go-sitter-forest/elixir", "."},
	"go":         {"github.com/tree-sitter/tree-sitter-go", "src"},
	"haskell":    {"github.com/tree-sitter/tree-sitter-haskell", "src"},
	"html":       {"github.com/tree-sitter/tree-sitter-html", "src"},
	"java":       {"github.com/tree-sitter/tree-sitter-java", "src"},
	"javascript": {"github.com/tree-sitter/tree-sitter-javascript", "src"},
	"json":       {"github.com/tree-sitter/tree-sitter-json", "src"},
	"kotlin":     {"github.com/alexaandru/go-sitter-forest/kotlin", "."},
	"lua":        {"github.com/tree-sitter-grammars/tree-sitter-lua", "src"},
	"nix":        {"github.com/alexaandru/go-sitter-forest/nix", "."},
	"php":        {"github.com/tree-sitter/tree-sitter-php", "php_only/src"},
	"python":     {"github.com/tree-sitter/tree-sitter-python", "src"},
	"ruby":       {"github.com/tree-sitter/tree-sitter-ruby", "src"},
	"rust":       {"github.com/tree-sitter/tree-sitter-rust", "src"},
	"scala":      {"github.com/tree-sitter/tree-sitter-scala", "src"},
	"solidity":   {"github.com/alexaandru/go-sitter-forest/solidity", "."},
	"swift":      {"github.com/alexaandru/go-sitter-forest/swift", "."},
	"tsx":        {"github.com/tree-sitter/tree-sitter-typescript", "tsx/src"},
	"typescript": {"github.com/tree-sitter/tree-sitter-typescript", "typescript/src"},
	"yaml":       {"github.com/tree-sitter-grammars/tree-sitter-yaml", "src"},
}

// rule is a node of a grammar.json rule tree.
type rule struct {
	Type    string `json:"type"`
	Value   any    `json:"value"` // a string, or a precedence's number
	Name    string `json:"name"`
	Named   bool   `json:"named"`
	Content *rule  `json:"content"`
	Members []rule `json:"members"`
}

func (r *rule) str() string { s, _ := r.Value.(string); return s }

type grammarJSON struct {
	Rules     map[string]rule `json:"rules"`
	Externals []rule          `json:"externals"`
}

// strings adds the anonymous tokens r spells out: its strings, except those inside a
// token() of more than one string (which are no token of their own).
func (r *rule) strings(out map[string]bool) {
	switch r.Type {
	case "STRING":
		out[r.str()] = true
	case "TOKEN", "IMMEDIATE_TOKEN":
		if r.Content.Type == "STRING" {
			out[r.Content.str()] = true
		}
	default:
		if r.Content != nil {
			r.Content.strings(out)
		}
		for i := range r.Members {
			r.Members[i].strings(out)
		}
	}
}

// aliases adds the names of anonymous aliases whose node is something other than that
// very string: a pattern, an external token, a rule, another string. Such a node has the
// alias's kind but not necessarily its text.
func (r *rule) aliases(out map[string]bool) {
	if r.Type == "ALIAS" && !r.Named && !(r.Content.Type == "STRING" && r.Content.str() == r.str()) {
		out[r.str()] = true
	}
	if r.Content != nil {
		r.Content.aliases(out)
	}
	for i := range r.Members {
		r.Members[i].aliases(out)
	}
}

// last adds the strings that can be the last symbol of one of r's productions, and
// reports whether r can match nothing. After such a token the parse table has a reduce
// action, which is where tree-sitter's error recovery may insert it as a zero-width
// missing node.
func (r *rule) last(out map[string]bool) (nullable bool) {
	switch r.Type {
	case "BLANK":
		return true
	case "STRING":
		out[r.str()] = true
	case "TOKEN", "IMMEDIATE_TOKEN":
		if r.Content.Type == "STRING" {
			out[r.Content.str()] = true
		}
	case "PATTERN", "SYMBOL":
	case "SEQ":
		for i := len(r.Members) - 1; i >= 0; i-- {
			if !r.Members[i].last(out) {
				return false
			}
		}
		return true
	case "CHOICE":
		for i := range r.Members {
			if r.Members[i].last(out) {
				nullable = true
			}
		}
		return nullable
	case "REPEAT":
		r.Content.last(out)
		return true
	case "ALIAS":
		if !r.Named {
			out[r.str()] = true
		}
		return r.Content.last(out)
	default: // FIELD, PREC*, RESERVED
		if r.Content != nil {
			return r.Content.last(out)
		}
	}
	return false
}

// exactFromGrammar computes the exact tokens of a grammar.json: its anonymous tokens of at
// least two bytes that no alias stands for, no external scanner produces, and no
// production ends with.
func exactFromGrammar(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g grammarJSON
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	all, unsafe := map[string]bool{}, map[string]bool{}
	for _, r := range g.Rules {
		r.strings(all)
		r.aliases(unsafe)
		r.last(unsafe)
	}
	for _, e := range g.Externals {
		if e.Type == "STRING" {
			unsafe[e.str()] = true
		}
	}
	var out []string
	for s := range all {
		if len(s) >= 2 && !unsafe[s] && !strings.ContainsAny(s, " \t\r\n") {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestExactTokens: the table of exact tokens is what each grammar's grammar.json, in the
// module version this build selects, says.
func TestExactTokens(t *testing.T) {
	dirs := map[string]string{}
	for _, name := range Languages() {
		src, ok := grammarSources[name]
		if !ok {
			t.Fatalf("%s: no grammar.json location", name)
		}
		dir := dirs[src[0]]
		if dir == "" {
			out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", src[0]).Output()
			if err != nil {
				t.Fatalf("go list -m %s: %v", src[0], err)
			}
			dir = strings.TrimSpace(string(out))
			dirs[src[0]] = dir
		}
		got := exactFromGrammar(t, filepath.Join(dir, src[1], "grammar.json"))
		if want := strings.Fields(exactTokens[name]); !slices.Equal(got, want) {
			t.Errorf("%s: exactTokens says\n\t%q\nits grammar.json gives\n\t%q", name, strings.Join(want, " "), strings.Join(got, " "))
		}
	}
}
