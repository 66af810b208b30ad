package webfetch

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
)

// prescanBytes is how much of an HTML body is searched for a <meta> charset declaration.
const prescanBytes = 1024

// decoded is a body turned into UTF-8 text, with how the encoding was chosen.
type decoded struct {
	text     string
	charset  string // canonical lower-case name
	fallback bool   // guessed without a declaration
	warning  string
}

// decodeBody converts body to valid UTF-8. The encoding is chosen in this order: a byte order
// mark; the charset parameter of contentType; for HTML, a <meta> declaration within the first
// 1,024 bytes; valid UTF-8; a statistical guess with at least 50 % confidence; windows-1252.
// An unknown declared label decodes as UTF-8 with a warning. When cut is true the body was
// truncated, and an incomplete character at its end is dropped rather than replaced.
func decodeBody(body []byte, contentType string, isHTML, cut bool) decoded {
	if enc, name, n := bomEncoding(body); enc != nil {
		return decoded{text: decodeWith(enc, body[n:], cut), charset: name}
	}
	if label := contentTypeCharset(contentType); label != "" {
		enc, name := charset.Lookup(label)
		if enc == nil {
			return decoded{text: decodeWith(encoding.Nop, body, cut), charset: "utf-8", warning: "Unsupported charset decoder: " + label}
		}
		return decoded{text: decodeWith(enc, body, cut), charset: strings.ToLower(name)}
	}
	if isHTML {
		if enc, name := metaPrescan(body[:min(len(body), prescanBytes)]); enc != nil {
			return decoded{text: decodeWith(enc, body, cut), charset: strings.ToLower(name)}
		}
	}
	if u := trimIf(body, cut); utf8.Valid(u) {
		return decoded{text: string(u), charset: "utf-8"}
	}
	name := guessCharset(body, isHTML)
	enc, canon := charset.Lookup(name)
	if enc == nil {
		enc, canon = charset.Lookup("windows-1252")
	}
	canon = strings.ToLower(canon)
	return decoded{
		text:     decodeWith(enc, body, cut),
		charset:  canon,
		fallback: true,
		warning:  "Guessed charset without declaration: " + canon,
	}
}

// guessCharset asks the statistical detector; below 50 % confidence it answers windows-1252.
func guessCharset(body []byte, isHTML bool) string {
	d := chardet.NewTextDetector()
	if isHTML {
		d = chardet.NewHtmlDetector()
	}
	r, err := d.DetectBest(body)
	if err != nil || r == nil || r.Confidence < 50 {
		return "windows-1252"
	}
	switch strings.ToLower(r.Charset) {
	case "iso-8859-1":
		// The WHATWG maps this label to windows-1252 anyway; say so directly.
		return "windows-1252"
	case "utf-8":
		// The body is not valid UTF-8 (checked before guessing).
		return "windows-1252"
	}
	return r.Charset
}

func bomEncoding(b []byte) (encoding.Encoding, string, int) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return encoding.Nop, "utf-8", 3
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		e, _ := charset.Lookup("utf-16be")
		return e, "utf-16be", 2
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		e, _ := charset.Lookup("utf-16le")
		return e, "utf-16le", 2
	}
	return nil, "", 0
}

func contentTypeCharset(ct string) string {
	if ct == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		// Be lenient with malformed parameters: look for charset= by hand.
		i := strings.Index(strings.ToLower(ct), "charset=")
		if i < 0 {
			return ""
		}
		v := ct[i+len("charset="):]
		if j := strings.IndexAny(v, "; "); j >= 0 {
			v = v[:j]
		}
		return strings.Trim(v, `"' `)
	}
	return strings.TrimSpace(params["charset"])
}

// metaPrescan looks for <meta charset> or an http-equiv Content-Type in the given prefix.
func metaPrescan(prefix []byte) (encoding.Encoding, string) {
	z := html.NewTokenizer(bytes.NewReader(prefix))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if !bytes.Equal(name, []byte("meta")) || !hasAttr {
				continue
			}
			var label, content string
			httpEquiv := false
			for {
				k, v, more := z.TagAttr()
				switch strings.ToLower(string(k)) {
				case "charset":
					label = string(v)
				case "http-equiv":
					httpEquiv = strings.EqualFold(string(v), "content-type")
				case "content":
					content = string(v)
				}
				if !more {
					break
				}
			}
			if label == "" && httpEquiv {
				label = contentTypeCharset(content)
			}
			if label == "" {
				continue
			}
			enc, canon := charset.Lookup(label)
			if enc == nil {
				continue
			}
			// A <meta> cannot truthfully declare UTF-16: the bytes read so far were ASCII.
			if strings.HasPrefix(canon, "utf-16") {
				return encoding.Nop, "utf-8"
			}
			return enc, canon
		}
	}
}

func decodeWith(enc encoding.Encoding, b []byte, cut bool) string {
	if enc == encoding.Nop {
		return validUTF8(trimIf(b, cut))
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return validUTF8(b)
	}
	s := validUTF8(out)
	if cut {
		s = strings.TrimSuffix(s, "\uFFFD")
	}
	return s
}

func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func trimIf(b []byte, cut bool) []byte {
	if cut {
		return dropPartialTail(b)
	}
	return b
}

// dropPartialTail removes an incomplete UTF-8 sequence at the end of b.
func dropPartialTail(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		c := b[i]
		if c < utf8.RuneSelf {
			return b
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}
