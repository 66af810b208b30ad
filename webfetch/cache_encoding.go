package webfetch

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"time"
)

// entryMagic starts every encoded entry; its digit is the encoding version, which is also
// part of the policy fingerprint, so entries of another version are never looked up.
const entryMagic = "webfetch-entry-1\n"

// wireEntry is the encoded form of a CacheEntry. It is encoded with encoding/gob, which keeps
// strings byte for byte (header values such as an ETag may hold bytes that are not UTF-8
// and must be sent back exactly).
type wireEntry struct {
	StoredAt       time.Time
	KeepUntil      time.Time
	ETag           string
	LastModified   string
	FinalURL       string
	Canonical      string
	Status         int
	ContentType    string
	Charset        string
	ContentLength  int64
	Filename       string
	Headings       []string
	Title          string
	Lang           string
	Byline         string
	SiteName       string
	Published      string
	Source         SourceKind
	UsedLLMS       bool
	ExtractedMain  bool
	Redirects      []Hop
	Upgraded       bool
	LLMSProbeError string
	LLMSTruncated  bool
	Truncated      bool
	WordCount      int
	Quality        []QualitySignal
	DecodedCharset string
	DecodeWarn     string
	DecodeFallback bool
	HTML           string
	Markdown       string
	Text           string
	TextDiffers    bool // false: Text is Markdown (not sent twice)
	// gob sends no empty slice, so whether each list was set is sent beside it.
	HasHeadings, HasRedirects, HasQuality, HasBinBytes bool
	Binary                                             *BinaryInfo
	BinBytes                                           []byte
}

// MarshalBinary encodes the whole entry: the exported fields and the content, versioned.
func (e *CacheEntry) MarshalBinary() ([]byte, error) {
	if e == nil || e.st == nil {
		return nil, errors.New("webfetch: cache entry has no content (build entries with a Fetcher, or decode them with UnmarshalBinary)")
	}
	st := e.st
	w := wireEntry{
		StoredAt: e.StoredAt, KeepUntil: e.KeepUntil, ETag: e.ETag, LastModified: e.LastModified,
		FinalURL: st.finalURL, Canonical: st.canonical, Status: st.status, ContentType: st.contentType,
		Charset: st.charset, ContentLength: st.contentLength, Filename: st.filename, Headings: st.headings,
		Title: st.title, Lang: st.lang, Byline: st.byline, SiteName: st.siteName, Published: st.published,
		Source: st.source, UsedLLMS: st.usedLLMS, ExtractedMain: st.extractedMain, Redirects: st.redirects,
		Upgraded: st.upgraded, LLMSProbeError: st.llmsProbeError, LLMSTruncated: st.llmsTruncated,
		Truncated: st.truncated, WordCount: st.wordCount, Quality: st.quality,
		DecodedCharset: st.decodedCharset, DecodeWarn: st.decodeWarn, DecodeFallback: st.decodeFallback,
		HTML: st.html, Markdown: st.markdown, Binary: st.binary, BinBytes: st.binBytes,
	}
	if st.text != st.markdown {
		w.Text, w.TextDiffers = st.text, true
	}
	w.HasHeadings, w.HasRedirects, w.HasQuality, w.HasBinBytes = st.headings != nil, st.redirects != nil, st.quality != nil, st.binBytes != nil
	var buf bytes.Buffer
	buf.WriteString(entryMagic)
	if err := gob.NewEncoder(&buf).Encode(&w); err != nil {
		return nil, fmt.Errorf("webfetch: encoding a cache entry: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote, replacing e. Data of another version or
// malformed data is an error; it never panics, and what it allocates is bounded by the
// length of data.
func (e *CacheEntry) UnmarshalBinary(data []byte) error {
	body, ok := bytes.CutPrefix(data, []byte(entryMagic))
	if !ok {
		return errors.New("webfetch: not a cache entry of this version")
	}
	if !gobFramed(body) {
		return errors.New("webfetch: decoding a cache entry: malformed framing")
	}
	var w wireEntry
	r := bytes.NewReader(body)
	if err := gob.NewDecoder(r).Decode(&w); err != nil {
		return fmt.Errorf("webfetch: decoding a cache entry: %w", err)
	}
	if r.Len() != 0 {
		return errors.New("webfetch: decoding a cache entry: trailing data")
	}
	st := &stored{
		finalURL: w.FinalURL, canonical: w.Canonical, status: w.Status, contentType: w.ContentType,
		charset: w.Charset, etag: w.ETag, lastModified: w.LastModified, contentLength: w.ContentLength,
		filename: w.Filename, headings: w.Headings, title: w.Title, lang: w.Lang, byline: w.Byline,
		siteName: w.SiteName, published: w.Published, source: w.Source, usedLLMS: w.UsedLLMS,
		extractedMain: w.ExtractedMain, redirects: w.Redirects, upgraded: w.Upgraded,
		llmsProbeError: w.LLMSProbeError, llmsTruncated: w.LLMSTruncated, truncated: w.Truncated,
		wordCount: w.WordCount, quality: w.Quality, decodedCharset: w.DecodedCharset,
		decodeWarn: w.DecodeWarn, decodeFallback: w.DecodeFallback, html: w.HTML, markdown: w.Markdown,
		text: w.Markdown, binary: w.Binary, binBytes: w.BinBytes,
	}
	if w.TextDiffers {
		st.text = w.Text
	}
	if w.HasHeadings && st.headings == nil {
		st.headings = []string{}
	}
	if w.HasRedirects && st.redirects == nil {
		st.redirects = []Hop{}
	}
	if w.HasQuality && st.quality == nil {
		st.quality = []QualitySignal{}
	}
	if w.HasBinBytes && st.binBytes == nil {
		st.binBytes = []byte{}
	}
	if st.binary != nil && st.binary.Saved && st.binBytes == nil {
		return errors.New("webfetch: decoding a cache entry: a saved binary without its bytes")
	}
	*e = CacheEntry{StoredAt: w.StoredAt, KeepUntil: w.KeepUntil, ETag: w.ETag, LastModified: w.LastModified, Size: st.size(), st: st}
	return nil
}

// gobFramed reports whether data is a sequence of gob messages whose length prefixes all fit
// in data. The gob decoder allocates a message's declared length before reading it (up to
// 1 GiB), so the framing is checked first: decoding then allocates at most about len(data).
func gobFramed(data []byte) bool {
	for len(data) > 0 {
		n, size := uint64(data[0]), 1
		if n >= 0x80 {
			// A negated byte count, then that many big-endian bytes.
			k := int(-int8(data[0]))
			if k < 1 || k > 8 || len(data) < 1+k {
				return false
			}
			n = 0
			for _, b := range data[1 : 1+k] {
				n = n<<8 | uint64(b)
			}
			size = 1 + k
		}
		data = data[size:]
		if n > uint64(len(data)) {
			return false
		}
		data = data[n:]
	}
	return true
}
