package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// FuzzParseGitignore: any text parses without panicking into rules whose patterns compile,
// and matching any path against them never panics. Seeds follow TestIgnoreRules.
func FuzzParseGitignore(f *testing.F) {
	f.Add("*.log\n!keep.log\nbuild/\n", "a/keep.log", false)
	f.Add("/x.go\na/**/z\n{a,b}\n\\#x\n", "a/b/z", true)
	f.Add("[ab].txt   \n?.txt\n", "b.txt", false)
	f.Fuzz(func(t *testing.T, text, path string, dir bool) {
		rules := parseGitignore([]byte(text))
		for _, r := range rules {
			if !doublestar.ValidatePattern(r.pattern) || r.pattern == "" {
				t.Fatalf("rule %+v has an invalid pattern", r)
			}
		}
		path = strings.Trim(path, "/")
		if path == "" {
			return
		}
		s := &ignoreSet{rules: rules}
		_ = s.ignored(path, dir)
		_ = (&ignoreSet{dir: "d", rules: rules, parent: s}).ignored("d/"+path, dir)
	})
}

// FuzzDecodeArgs: any argument bytes are either decoded into the struct or refused with an
// ErrInvalidArgs error whose message names the tool and lists the expected arguments.
// Seeds follow the argument cases of TestCalls.
func FuzzDecodeArgs(f *testing.F) {
	f.Add([]byte(`{"pattern":"Greet","path":"src","limit":3}`))
	f.Add([]byte(`{"pattern":7}`))
	f.Add([]byte(`[1]`))
	f.Add([]byte(`{"pattern":"x","bogus":true}`))
	f.Add([]byte(`{"pattern":"x","limit":0}`))
	f.Add([]byte(``))
	tl, err := makeTool("grep", "", Annotations{}, nil, func(_ context.Context, _ *workspace, in *grepArgs, _ Progress) (string, error) { return "", nil })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := tl.args.decode("grep", json.RawMessage(raw))
		if err != nil {
			if !errors.Is(err, ErrInvalidArgs) || !strings.HasPrefix(err.Error(), "grep: invalid arguments: ") || !strings.Contains(err.Error(), "pattern (string, required)") {
				t.Fatalf("error %v", err)
			}
			return
		}
		if _, ok := in.(*grepArgs); !ok {
			t.Fatalf("decoded %T", in)
		}
	})
}
