package webfetch

import (
	"bytes"
	"encoding/json"

	"math"
	"time"
)

// Description is the tool description shown to models.
const Description = "Fetch a URL and return its main content as Markdown (or text or HTML) under a short metadata block. " +
	"Prefers a site's llms.txt or a page's Markdown variant where one exists, follows only same-site redirects, " +
	"never connects to local or private addresses, reports binary files instead of dumping them, pages long content " +
	"with offset, and can answer a prompt about the page with a small secondary model."

const schema = `{
  "type": "object",
  "properties": {
    "url": {"type": "string", "description": "Absolute http:// or https:// URL to fetch."},
    "format": {"type": "string", "enum": ["markdown", "text", "html"], "default": "markdown"},
    "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 120, "default": 30, "description": "Seconds for the whole call."},
    "prompt": {"type": "string", "description": "Optional task answered from the page by a secondary model."},
    "extract_main": {"type": "boolean", "default": true, "description": "Extract the main content; false returns the whole page body."},
    "prefer_llms_txt": {"type": "string", "enum": ["auto", "always", "never"], "default": "auto"},
    "include_metadata": {"type": "boolean", "default": true},
    "save_binary": {"type": "boolean", "default": false, "description": "Download binary files and save them to disk."},
    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Character offset of the window, from next_offset."}
  },
  "required": ["url"],
  "additionalProperties": false
}`

// Schema returns the JSON schema of the tool arguments read by [ParseArgs].
func Schema() []byte { return []byte(schema) }

type args struct {
	URL             string   `json:"url"`
	Format          *string  `json:"format"`
	Timeout         *float64 `json:"timeout"`
	Prompt          string   `json:"prompt"`
	ExtractMain     *bool    `json:"extract_main"`
	PreferLLMS      *string  `json:"prefer_llms_txt"`
	IncludeMetadata *bool    `json:"include_metadata"`
	SaveBinary      bool     `json:"save_binary"`
	Offset          *int     `json:"offset"`
}

// ParseArgs reads JSON tool arguments (snake_case, as in [Schema]) into a Request with the
// defaults filled in. It rejects unknown fields, a timeout outside (0, 120] seconds, an
// unknown format or prefer_llms_txt, and a negative offset, naming the field; the errors wrap
// ErrInvalidRequest. The URL itself is checked by Fetch.
func ParseArgs(raw []byte) (Request, error) {
	var a args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Request{}, newErr(ErrInvalidRequest, "", "Invalid arguments: %v", err)
	}
	req := Request{URL: a.URL, Prompt: a.Prompt, SaveBinary: a.SaveBinary, Format: FormatMarkdown, LLMS: LLMSAuto, Timeout: DefaultTimeout}
	if a.URL == "" {
		return Request{}, newErr(ErrInvalidRequest, "", "Invalid arguments: url is required")
	}
	if a.Format != nil {
		switch f := Format(*a.Format); f {
		case FormatMarkdown, FormatText, FormatHTML:
			req.Format = f
		default:
			return Request{}, newErr(ErrInvalidRequest, "", "Invalid format %q: use %s", *a.Format, quoteList("markdown", "text", "html"))
		}
	}
	if a.Timeout != nil {
		t := *a.Timeout
		if math.IsNaN(t) || t <= 0 || t > DefaultMaxTimeout.Seconds() {
			return Request{}, newErr(ErrInvalidRequest, "", "Invalid timeout %v: use seconds greater than 0 and at most 120", t)
		}
		req.Timeout = time.Duration(t * float64(time.Second))
	}
	if a.ExtractMain != nil {
		req.WholePage = !*a.ExtractMain
	}
	if a.PreferLLMS != nil {
		switch m := LLMSMode(*a.PreferLLMS); m {
		case LLMSAuto, LLMSAlways, LLMSNever:
			req.LLMS = m
		default:
			return Request{}, newErr(ErrInvalidRequest, "", "Invalid prefer_llms_txt %q: use %s", *a.PreferLLMS, quoteList("auto", "always", "never"))
		}
	}
	if a.IncludeMetadata != nil {
		req.OmitMetadata = !*a.IncludeMetadata
	}
	if a.Offset != nil {
		if *a.Offset < 0 {
			return Request{}, newErr(ErrInvalidRequest, "", "Invalid offset %d: use 0 or a next_offset from an earlier result", *a.Offset)
		}
		req.Offset = *a.Offset
	}
	return req, nil
}
