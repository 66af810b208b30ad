package extract

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// maxNesting is how deep elements are kept when a document is too deep for the HTML parser
// (which refuses more than 512 open elements), and it bounds the cost of the walks the
// main-content extractor makes up a node's ancestors (real pages nest about 40 deep). Deeper
// start and end tags are dropped; their text is kept.
const maxNesting = 128

// Parse parses decoded UTF-8 HTML. A document nested deeper than 128 levels is flattened
// below that depth, so such pages still yield their text and stay cheap to extract.
func Parse(r io.Reader) (*html.Node, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err == nil && depth(doc) <= maxNesting+8 {
		return doc, nil
	}
	if doc, ferr := html.Parse(bytes.NewReader(flatten(data, maxNesting))); ferr == nil {
		return doc, nil
	}
	return nil, err
}

// depth is the nesting depth of the tree under n.
func depth(n *html.Node) int {
	type item struct {
		n *html.Node
		d int
	}
	deepest := 0
	stack := []item{{n, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, it.d)
		for c := it.n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, item{c, it.d + 1})
		}
	}
	return deepest
}

type openTag struct {
	name string
	kept bool
}

// flatten re-serialises a document, dropping the tags of elements nested deeper than limit.
func flatten(data []byte, limit int) []byte {
	z := html.NewTokenizer(bytes.NewReader(data))
	var out bytes.Buffer
	var stack []openTag
	depth := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return out.Bytes()
		case html.StartTagToken:
			name, _ := z.TagName()
			n := strings.ToLower(string(name))
			if voidElements[n] {
				out.Write(z.Raw())
				continue
			}
			kept := depth < limit
			if kept {
				out.Write(z.Raw())
				depth++
			}
			stack = append(stack, openTag{name: n, kept: kept})
		case html.EndTagToken:
			name, _ := z.TagName()
			n := strings.ToLower(string(name))
			i := len(stack) - 1
			for i >= 0 && stack[i].name != n {
				i--
			}
			if i < 0 {
				continue
			}
			for _, t := range stack[i:] {
				if t.kept {
					depth--
				}
			}
			if stack[i].kept {
				out.Write(z.Raw())
			}
			stack = stack[:i]
		default:
			out.Write(z.Raw())
		}
	}
}

var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true,
	"param": true, "keygen": true,
}
