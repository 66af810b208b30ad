package webfetch

import (
	"encoding/json"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func hostileSeeds() []string {
	return []string{
		"",
		"<",
		strings.Repeat("<div>", 3000),
		"<html><body><p>unclosed <b><i><table><tr><td>cell",
		"<p>nul\x00byte</p>\x00\x00",
		`<img src="` + strings.Repeat("a", 70000) + `">`,
		"<pre><code class=\"language-go\">```\nfunc(){}\n```</code></pre>",
		"<meta charset=\"shift_jis\"><p>\x82\xa0\x82\xa2</p>",
		"\xff\xfe<\x00p\x00>\x00",
		"<svg><math><mi>x</mi></math></svg><template><p>t</p></template>",
		"<a href=\"javascript:alert(1)\">x</a><a href=\"#a\" title=\"Permalink\">¶</a>",
	}
}

// fuzzSeedBytes is how much of each Readability page seeds FuzzExtract: whole pages (up to
// 834 KiB) make each execution slow enough that the fuzzer barely mutates.
const fuzzSeedBytes = 16 << 10

func FuzzExtract(f *testing.F) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "readability", "*", "source.html"))
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b[:min(len(b), fuzzSeedBytes)])
		}
	}
	for _, s := range hostileSeeds() {
		f.Add([]byte(s))
	}
	base, _ := url.Parse(pageBase)
	f.Fuzz(func(t *testing.T, body []byte) {
		a, err := extractHTML(body, "text/html", base, false, DefaultMaxHeadings)
		if err != nil {
			return
		}
		for _, s := range []string{a.markdown, a.text, a.html, a.title} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 output %q", s)
			}
		}
		b, err := extractHTML(body, "text/html", base, false, DefaultMaxHeadings)
		if err != nil || a.markdown != b.markdown || a.text != b.text || a.html != b.html {
			t.Fatal("extraction is not deterministic")
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("caf\xe9"), "text/plain")
	f.Add([]byte("\xef\xbb\xbfhello"), "text/html; charset=iso-8859-1")
	f.Add([]byte("<meta charset=gbk>\xc4\xe3\xba\xc3"), "text/html")
	f.Add([]byte("\x82\xa0"), "text/plain; charset=x-unknown")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		for _, cut := range []bool{false, true} {
			d := decodeBody(body, ct, strings.Contains(ct, "html"), cut)
			if !utf8.ValidString(d.text) {
				t.Fatalf("invalid UTF-8")
			}
			if len(d.text) > 3*len(body)+3 {
				t.Fatalf("output %d bytes for %d input bytes", len(d.text), len(body))
			}
		}
	})
}

func FuzzFilename(f *testing.F) {
	f.Add(`attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`, "/a/b.pdf")
	f.Add(`attachment; filename="../../etc/passwd"`, "/x")
	f.Add("", "/con.txt")
	f.Add("", "/"+strings.Repeat("é", 300)+".tar.gz")
	f.Add(`inline; filename=" . "`, "/")
	f.Add("attachment; filename*=UTF-8''"+strings.Repeat("%E6%BC%A2", 100)+".pdf", "/")
	f.Add(`attachment; filename="`+strings.Repeat("a", 243)+`.pdf"`, "/")
	f.Fuzz(func(t *testing.T, header, urlPath string) {
		u := &url.URL{Scheme: "https", Host: "x", Path: urlPath}
		name := chooseFilename(header, u, "application/pdf", 1)
		if name == "" || utf8.RuneCountInString(name) > maxFilenameLen || len(name) > maxFilenameBytes {
			t.Fatalf("bad length %q", name)
		}
		// Every alternative name keeps its suffix and stays within the limits.
		ext := path.Ext(name)
		for _, i := range []int{1, 999} {
			alt := uniqueName(strings.TrimSuffix(name, ext), ext, i)
			if !strings.Contains(alt, "-"+strconv.Itoa(i)) || len(alt) > maxFilenameBytes || utf8.RuneCountInString(alt) > maxFilenameLen || alt == name {
				t.Fatalf("alternative %d of %q is %q", i, name, alt)
			}
		}
		if strings.ContainsAny(name, `<>:"/\|?*`) || strings.IndexFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
			t.Fatalf("unsafe character in %q", name)
		}
		if deviceName.MatchString(name) || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") ||
			strings.HasPrefix(name, " ") || strings.HasSuffix(name, " ") {
			t.Fatalf("unsafe name %q", name)
		}
		dir := filepath.FromSlash("/tmp/dir")
		if j := filepath.Join(dir, name); filepath.Dir(j) != dir {
			t.Fatalf("%q escapes the directory", name)
		}
	})
}

func FuzzFrontmatter(f *testing.F) {
	f.Add("title\n---\n-->", "https://x/\x00", true)
	f.Add("<b>&", "", false)
	f.Add("\xff\xfe", "a\u2028b", true)
	f.Fuzz(func(t *testing.T, title, final string, html bool) {
		r := &Result{Kind: KindContent, Format: FormatMarkdown, IncludeMetadata: true, RequestedURL: "https://x/", FinalURL: final,
			Title: title, ContentLength: -1, Redirects: []Hop{}, Quality: []QualitySignal{}, Headings: []string{title}}
		if html {
			r.Format = FormatHTML
		}
		block := frontmatter(r, html)
		if Render(r) != Render(r) {
			t.Fatal("Render is not pure")
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(block, "\n"), "\n") {
			key, val, ok := strings.Cut(line, ": ")
			if !ok {
				if strings.HasSuffix(line, ":") {
					continue
				}
				key, val = "", strings.TrimPrefix(line, "  - ")
			}
			if html && strings.Contains(val, "--") {
				t.Fatalf("html value contains --: %q", line)
			}
			var v any
			if err := json.Unmarshal([]byte(val), &v); err != nil {
				t.Fatalf("line %q does not parse: %v", line, err)
			}
			if key == "title" && v.(string) != string([]rune(title)) {
				t.Fatalf("title %q round-trips to %q", title, v)
			}
		}
	})
}
