package webfetch

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/harnesskit/harnesskit/webfetch/internal/extract"
)

// Issue 23: on held-out pages the Markdown scored below the text (F1 0.9837 against 1.0000),
// the weakest being a news page with figures and captions, an image-gallery blog and a
// release-notes blog. These local pages have those shapes; their Markdown (link targets
// removed) must say what the page says, no more, no less: token F1 against the page's text
// of at least 0.99. Found and fixed: table cells run together when a table cannot be a
// Markdown table (a cell with a list or paragraphs), "<!--THE END-->" written between
// adjacent lists, and alt text repeating a figure's caption or the page title.
func TestMarkdownFidelity(t *testing.T) {
	var news, gallery, notes strings.Builder
	for i := range 8 {
		fmt.Fprintf(&news, `<p>Paragraph %d of the report says the council voted on the new budget after a long debate.</p>
<figure><img src="/photo%d.jpg" alt="Photograph of councillors number %d seated around the chamber table"><figcaption>Councillors at the vote, session %d</figcaption></figure>`, i, i, i, i)
		fmt.Fprintf(&gallery, `<li><figure><a href="/full/%d"><img src="/thumb/%d.jpg" alt="Sunset over the harbour, picture %d"></a><figcaption>Harbour at dusk, %d</figcaption></figure></li>`, i, i, i, i)
		fmt.Fprintf(&notes, `<ul><li><strong>Fixed</strong> crash %d when opening large files</li><li>Improved start-up time %d</li></ul>`, i, i)
	}
	pages := []struct{ name, title, body string }{
		{name: "news_figures_captions", title: "Council budget vote", body: "<article><h1>Council budget vote</h1>" + news.String() + "</article>"},
		{name: "image_gallery", title: "Harbour photos", body: `<article><h1>Harbour photos</h1><p>A week of evenings by the water.</p><ul class="gallery">` + gallery.String() + "</ul></article>"},
		{name: "release_notes", title: "Release notes", body: "<article><h1>Release notes</h1><p>What changed in this release.</p>" + notes.String() + "</article>"},
		{name: "table_with_block_cells", title: "Plans", body: `<article><h1>Plans</h1><table><tr><th>Plan</th><th>Includes</th></tr>
<tr><td><p>Basic plan</p><p>for one user</p></td><td><ul><li>ten projects</li><li>email support</li></ul></td></tr>
<tr><td>Team<br>plan</td><td>unlimited projects</td></tr></table></article>`},
		{name: "image_alt_is_title", title: "Rocket launch delayed", body: `<article><p><img src="/r.jpg" alt="Rocket launch delayed"></p><p>The launch moved to next week because of high winds over the coast.</p></article>`},
	}
	base, _ := url.Parse("https://news.example/story")
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			page := "<!doctype html><html><head><title>" + p.title + "</title></head><body>" + p.body + "</body></html>"
			ex, err := extractHTML([]byte(page), "text/html; charset=utf-8", base, true, DefaultMaxHeadings)
			if err != nil {
				t.Fatal(err)
			}
			f, prec, rec := f1(tokens(stripTargets(ex.markdown)), tokens(extract.GoldText(ex.node)))
			if f < 0.99 {
				t.Errorf("Markdown F1 %.4f (P %.4f R %.4f):\n%s", f, prec, rec, ex.markdown)
			}
		})
	}
}
