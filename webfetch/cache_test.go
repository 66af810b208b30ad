package webfetch

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// keptBytes counts, independently of the cache's own accounting, the bytes a stored outcome
// keeps: every string, byte slice and list element reachable from it (strings with equal
// content are counted once, as identical renderings share one charge).
func keptBytes(st *stored) int64 {
	seen := map[string]bool{}
	var walk func(v reflect.Value) int64
	walk = func(v reflect.Value) int64 {
		switch v.Kind() {
		case reflect.String:
			s := v.String()
			if seen[s] {
				return 0
			}
			seen[s] = true
			return int64(len(s))
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				return int64(v.Len())
			}
			var n int64
			for i := range v.Len() {
				n += walk(v.Index(i))
			}
			return n
		case reflect.Pointer:
			if v.IsNil() {
				return 0
			}
			return walk(v.Elem())
		case reflect.Struct:
			var n int64
			for i := range v.NumField() {
				n += walk(v.Field(i))
			}
			return n
		}
		return 0
	}
	return walk(reflect.ValueOf(st))
}

// heldBytes is what the Fetcher's in-process cache really holds: keys and kept bytes of
// every live entry.
func heldBytes(f *Fetcher) (held int64, entries int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, k := range f.cache.lru.Keys() {
		e, _ := f.cache.lru.Peek(k)
		held += int64(len(k)) + keptBytes(e.st)
		entries++
	}
	return held, entries
}

// Issue 23: a 1 MiB budget held more than 100 MiB, because titles, ETags, headings and keys
// were not charged. Every byte kept counts against the budget.
func TestCacheChargesEveryByteKept(t *testing.T) {
	const budget = 1 << 20
	title := strings.Repeat("T", 300<<10)
	etag := `"` + strings.Repeat("e", 300<<10) + `"`
	heading := strings.Repeat("h ", 150)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", strings.Repeat("L", 100<<10))
		var body strings.Builder
		for i := range 12 {
			fmt.Fprintf(&body, "<h2>%s%d</h2><p>%s</p>", heading, i, words(40))
		}
		fmt.Fprint(w, htmlPage(title, "<article>"+body.String()+"</article>"))
	})
	f, _, _ := testFetcher(t, WithCache(budget, time.Hour))
	for i := range 4 {
		fetch(t, f, Request{URL: fmt.Sprintf("%s/page-%d?%s", s.URL, i, strings.Repeat("q", 1500))})
	}
	held, n := heldBytes(f)
	if held > budget {
		t.Errorf("the cache holds %d bytes in %d entries, budget %d", held, n, budget)
	}
	if n == 0 {
		t.Errorf("nothing cached: an entry of about 700 KiB fits a 1 MiB budget")
	}
}
