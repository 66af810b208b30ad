package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/harnesskit/harnesskit/webfetch"
)

//go:embed descriptions/webfetch.md
var webfetchDescription string

type webfetchArgs struct {
	URL    string `json:"url" jsonschema:"the absolute http:// or https:// URL to fetch"`
	Format string `json:"format,omitempty" jsonschema:"how to render the page: markdown (default), text or html"`
	Offset int    `json:"offset,omitempty" jsonschema:"the character to start at: the next_offset of an earlier result for the same url (default 0)"`
}

// WithWebFetch passes options to the fetcher behind the webfetch tool, for example
// webfetch.WithSSRFPolicy to let it reach loopback and private addresses (local servers,
// tests), or webfetch.WithHTTPClient. Default: webfetch's defaults, which refuse every
// loopback, private and metadata address. Repeated options accumulate.
func WithWebFetch(opts ...webfetch.Option) Option {
	return func(c *config) { c.webfetch = append(c.webfetch, opts...) }
}

// progressStep is how many bytes webfetch reads between two progress reports.
const progressStep = 64 << 10

func newWebfetch(b *Toolbox, c *config) (*Tool, error) {
	f, err := webfetch.New(c.webfetch...)
	if err != nil {
		return nil, fmt.Errorf("tools: webfetch: %w", err)
	}
	b.closers = append(b.closers, f.Close)
	return makeTool("webfetch", webfetchDescription, Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		func(s *jsonschema.Schema) {
			s.Properties["format"].Enum = []any{string(webfetch.FormatMarkdown), string(webfetch.FormatText), string(webfetch.FormatHTML)}
			zero := 0.0
			s.Properties["offset"].Minimum = &zero
		},
		func(ctx context.Context, _ *workspace, in *webfetchArgs, p Progress) (string, error) {
			format := webfetch.Format(in.Format)
			if format == "" {
				format = webfetch.FormatMarkdown
			}
			if p != nil {
				ctx = webfetch.ContextWithProgress(ctx, fetchProgress(p))
			}
			res, err := f.Fetch(ctx, webfetch.Request{URL: in.URL, Format: format, Offset: in.Offset})
			if err != nil {
				return "", err
			}
			return webfetch.Render(res), nil
		})
}

// fetchProgress turns webfetch's per-response byte counts into reports that only grow (a
// call may read several responses: llms.txt candidates, then the page), at most one per
// progressStep bytes and one at the end of each body of known length.
func fetchProgress(p Progress) webfetch.ProgressFunc {
	var url string
	var before, last, reported int64 // bytes of earlier bodies; of this one; at the last report
	return func(u string, read, total int64) {
		if u != url || read <= last { // a new body: within one, read only grows
			before += last
			url, last = u, 0
		}
		last = read
		done := before + read
		if done <= reported || done-reported < progressStep && read != total {
			return
		}
		reported = done
		all := 0.0
		if total >= 0 {
			all = float64(before + total)
		}
		p(float64(done), all, fmt.Sprintf("webfetch: %d bytes read from %s", read, u))
	}
}
