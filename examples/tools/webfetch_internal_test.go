package tools

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFetchProgress: webfetch's per-body byte counts become reports that only grow across
// bodies (llms.txt candidates, then the page), at most one per progressStep bytes, plus
// one at the end of each body of known length.
func TestFetchProgress(t *testing.T) {
	type ev struct {
		url         string
		read, total int64
	}
	const s = progressStep
	tests := []struct {
		name string
		in   []ev
		want []string // "done/total"
	}{
		{name: "small_body_known_length", in: []ev{{"a", 10, 30}, {"a", 30, 30}}, want: []string{"30/30"}},
		{name: "unknown_length_every_step", in: []ev{{"a", s / 2, -1}, {"a", s, -1}, {"a", s + 10, -1}, {"a", 2 * s, -1}},
			want: []string{fmt.Sprintf("%d/0", s), fmt.Sprintf("%d/0", 2*s)}},
		{name: "second_body_adds_to_the_first", in: []ev{{"probe", 100, 100}, {"page", 50, 200}, {"page", 200, 200}},
			want: []string{"100/100", "300/300"}},
		{name: "same_url_read_again", in: []ev{{"a", 40, 40}, {"a", 40, 40}},
			want: []string{"40/40", "80/80"}},
		{name: "large_body_known_length", in: []ev{{"a", s - 1, 3 * s}, {"a", s, 3 * s}, {"a", 3 * s, 3 * s}},
			want: []string{fmt.Sprintf("%d/%d", s, 3*s), fmt.Sprintf("%d/%d", 3*s, 3*s)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			fn := fetchProgress(func(done, total float64, _ string) { got = append(got, fmt.Sprintf("%.0f/%.0f", done, total)) })
			for _, e := range tc.in {
				fn(e.url, e.read, e.total)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("reports (-want +got):\n%s", d)
			}
		})
	}
}
