package webfetch

import (
	"context"
	"time"
)

// Format selects the rendering returned to the model.
type Format string

// Formats.
const (
	FormatMarkdown Format = "markdown"
	FormatText     Format = "text"
	FormatHTML     Format = "html"
)

// LLMSMode says when llms.txt files and per-page Markdown variants are probed.
type LLMSMode string

// llms.txt modes.
const (
	LLMSAuto   LLMSMode = "auto"   // only on docs-like hosts
	LLMSAlways LLMSMode = "always" // always; nothing accepted is reported, the page is not fetched
	LLMSNever  LLMSMode = "never"  // never
)

// SourceKind says where the content came from.
type SourceKind string

// Source kinds.
const (
	SourceHTML    SourceKind = "html"
	SourceText    SourceKind = "text"
	SourceLLMSTxt SourceKind = "llms_txt"
	SourceLLMSMD  SourceKind = "llms_md"
)

// BinaryKind classifies binary bodies.
type BinaryKind string

// Binary kinds.
const (
	BinaryImage BinaryKind = "image"
	BinaryAudio BinaryKind = "audio"
	BinaryVideo BinaryKind = "video"
	BinaryPDF   BinaryKind = "pdf"
	BinaryOther BinaryKind = "binary"
)

// Kind is the shape of a Result.
type Kind int

// Result kinds. Only KindContent and KindSummary carry page content; the others carry a
// message and are normal results, not errors.
const (
	KindContent         Kind = iota // a window of the selected rendering
	KindSummary                     // the summarizer's answer
	KindBinary                      // a one-line notice about a binary body
	KindRedirectBlocked             // a redirect the policy did not follow
	KindLLMSUnavailable             // LLMSAlways and nothing acceptable was found
)

func (k Kind) String() string {
	switch k {
	case KindContent:
		return "content"
	case KindSummary:
		return "summary"
	case KindBinary:
		return "binary"
	case KindRedirectBlocked:
		return "redirect_blocked"
	case KindLLMSUnavailable:
		return "llms_unavailable"
	}
	return "unknown"
}

// MarshalText makes Kind readable in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// QualitySignal is a hint about the content's usefulness.
type QualitySignal string

// Quality signals.
const (
	SignalVeryShort   QualitySignal = "very_short_content"
	SignalPaywall     QualitySignal = "possible_paywall"
	SignalBoilerplate QualitySignal = "high_boilerplate_ratio"
)

// SkipReason says why the summarizer was not used.
type SkipReason string

// Skip reasons.
const (
	SkipNoPrompt     SkipReason = "no_prompt"
	SkipNoModel      SkipReason = "no_secondary_model_configured"
	SkipEmptyContent SkipReason = "empty_content"
	SkipTooShort     SkipReason = "content_too_short"
	SkipModelFailed  SkipReason = "secondary_model_failed"
)

// Request is one fetch. Zero values mean the defaults: markdown, the fetcher's llms mode,
// a 30 s timeout, main-content extraction, metadata included, binaries not saved.
type Request struct {
	URL          string
	Format       Format
	Timeout      time.Duration // 0 = default (30 s); negative is invalid; above the maximum is clamped
	Prompt       string        // task for the summarizer; "" = none
	WholePage    bool          // skip main-content extraction
	LLMS         LLMSMode      // "" = the fetcher's default
	OmitMetadata bool          // no frontmatter block
	SaveBinary   bool          // download and save binary bodies
	Offset       int           // first character of the window, in code points
	SessionID    string        // the caller's session, passed to the summarizer
	// Tenant partitions the cache: results are shared only between requests of one tenant
	// (and one Fetcher policy). "" is a tenant like any other.
	Tenant string
}

// Hop is one followed or refused redirect.
type Hop struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Status int    `json:"status"`
}

func (h Hop) String() string { return itoa(h.Status) + " " + h.From + " -> " + h.To }

// Result is the outcome of a fetch. [Render] turns it into the text shown to a model.
type Result struct {
	Kind               Kind             `json:"kind"`
	Format             Format           `json:"format"`
	IncludeMetadata    bool             `json:"include_metadata"`
	RequestedURL       string           `json:"requested_url"`
	FinalURL           string           `json:"final_url,omitempty"`
	CanonicalURL       string           `json:"canonical_url,omitempty"`
	StatusCode         int              `json:"status_code,omitempty"`
	UpstreamStatus     int              `json:"upstream_status_code,omitempty"`
	SourceContentType  string           `json:"source_content_type,omitempty"`
	Charset            string           `json:"charset,omitempty"`
	ETag               string           `json:"etag,omitempty"`
	LastModified       string           `json:"last_modified,omitempty"`
	ContentLength      int64            `json:"content_length"`
	Filename           string           `json:"filename,omitempty"`
	Title              string           `json:"title,omitempty"`
	Lang               string           `json:"lang,omitempty"`
	Byline             string           `json:"byline,omitempty"`
	SiteName           string           `json:"site_name,omitempty"`
	PublishedTime      string           `json:"published_time,omitempty"`
	Headings           []string         `json:"headings,omitempty"`
	Source             SourceKind       `json:"source_kind,omitempty"`
	UsedLLMS           bool             `json:"used_llms_txt"`
	ExtractedMain      bool             `json:"extracted_main"`
	Redirects          []Hop            `json:"redirect_chain"`
	UpgradedToHTTPS    bool             `json:"upgraded_to_https"`
	LLMSProbeError     string           `json:"llms_probe_error,omitempty"`
	LLMSProbeTruncated bool             `json:"llms_probe_truncated,omitempty"`
	PreferLLMS         LLMSMode         `json:"prefer_llms_txt,omitempty"`
	CacheHit           bool             `json:"cache_hit"`
	CacheRevalidated   bool             `json:"cache_revalidated,omitempty"`
	BodyTruncated      bool             `json:"truncated"`
	WordCount          int              `json:"word_count"`
	Quality            []QualitySignal  `json:"quality_signals"`
	DecodedCharset     string           `json:"decoded_charset,omitempty"`
	DecodeFallback     bool             `json:"decode_fallback,omitempty"`
	DecodeWarning      string           `json:"decode_warning,omitempty"`
	Content            string           `json:"content"`
	TotalChars         int              `json:"total_chars"`
	Offset             int              `json:"offset,omitempty"`
	NextOffset         int              `json:"next_offset,omitempty"`
	OutputTruncated    bool             `json:"output_truncated,omitempty"`
	Summary            *SummaryInfo     `json:"summary,omitempty"`
	SkipReason         SkipReason       `json:"secondary_model_skipped_reason,omitempty"`
	SummaryError       string           `json:"secondary_model_error,omitempty"`
	Binary             *BinaryInfo      `json:"binary,omitempty"`
	Blocked            *BlockedRedirect `json:"blocked,omitempty"`
}

// SummaryInfo describes a summarizer answer.
type SummaryInfo struct {
	Model          string `json:"model"`
	InputChars     int    `json:"input_chars"`
	SourceChars    int    `json:"source_chars"`
	InputTruncated bool   `json:"input_truncated"`
}

// BinaryInfo describes a binary body.
type BinaryInfo struct {
	Kind          BinaryKind `json:"kind"`
	SavedPath     string     `json:"saved_path,omitempty"`
	MetadataOnly  bool       `json:"metadata_only,omitempty"`
	Saved         bool       `json:"saved"`
	DownloadLimit int64      `json:"download_limit_bytes,omitempty"`
}

// BlockedRedirect describes a redirect that was not followed.
type BlockedRedirect struct {
	RedirectURL string `json:"redirect_url"`
	Reason      string `json:"reason"`
	Status      int    `json:"status"`
}

// PermissionRequest is what the permission hook is asked to approve, once per Fetch.
type PermissionRequest struct {
	Patterns     []string // URLs the call may touch, plus the configured allow patterns
	URL          string   // normalised URL (https when upgraded)
	RequestedURL string   // as typed
	FallbackURL  string   // the typed http:// URL when an upgrade is tried
	ProbeLLMS    bool
	Format       Format
	Prompt       string
}

// Clock supplies the time used for cache freshness and generated file names.
type Clock interface{ Now() time.Time }

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// PermissionFunc is the host's permission hook.
type PermissionFunc func(context.Context, PermissionRequest) error

// ProgressFunc receives body progress: bytes read so far and the expected total (-1 when
// unknown). It is called from the fetching goroutine and must not block.
type ProgressFunc func(url string, read, total int64)
