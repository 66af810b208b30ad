//go:build cgo

package astsearch

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"testing"
)

// TestFixturesCurrent parses everything the fixture-backed tests need with the real
// grammars and checks that testdata/trees.json.gz holds exactly those trees (-update
// rewrites it).
func TestFixturesCurrent(t *testing.T) {
	r := &recorder{inner: nativeParser, ff: fixtureFile{Grammars: map[string]fixtureGrammar{}, Trees: map[string][][12]int64{}}}
	for _, c := range loadConformance(t) {
		s, _ := ParseStrictness(c.Strictness)
		p, err := compileWith(r.factory, c.Pattern, Lang(c.Language), s)
		if err != nil {
			continue
		}
		if _, err := p.FindAll([]byte(c.Source)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range selectorCases {
		if p, err := compileSel(r.factory, c.context, Lang(c.lang), c.query().Strictness, c.selector); err == nil {
			if _, err := p.FindAll([]byte(c.source)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range replaceRangeCases {
		if p, err := compileWith(r.factory, c.pattern, c.lang, Smart); err == nil {
			if _, err := p.FindAll([]byte(c.source)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, fs := range fixtureSources {
		tp, err := r.factory(fs.lang)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tp.Parse([]byte(fs.text)); err != nil {
			t.Fatal(err)
		}
		tp.Close()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(r.ff); err != nil {
		t.Fatal(err)
	}
	if *update {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		zw.Write(buf.Bytes())
		zw.Close()
		if err := os.WriteFile(fixturePath, gz.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ff, err := loadFixtures()
	if err != nil {
		t.Fatalf("%v (run go test -update ./astsearch)", err)
	}
	var cur bytes.Buffer
	json.NewEncoder(&cur).Encode(ff)
	if !*update && cur.String() != buf.String() {
		t.Errorf("%s is stale: the grammars or the fixture list changed; run go test -update ./astsearch", fixturePath)
	}
}
