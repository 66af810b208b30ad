package extract

import (
	"bytes"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// maxNesting is how deep elements are kept when a document is too deep for the HTML parser
// (which refuses more than 512 open elements). Deeper start and end tags are dropped; their
// text is kept.
const maxNesting = 256

// Parse parses decoded UTF-8 HTML. A document nested too deeply for the parser is flattened
// below 256 levels and parsed again, so such pages still yield their text instead of an
// error.
func Parse(r io.Reader) (*html.Node, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err == nil {
		return doc, nil
	}
	if doc, ferr := html.Parse(bytes.NewReader(flatten(data, maxNesting))); ferr == nil {
		return doc, nil
	}
	return nil, err
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
