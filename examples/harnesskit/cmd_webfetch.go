package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/harnesskit/harnesskit/webfetch"
)

const webfetchUsage = `usage: harnesskit webfetch [--format markdown|text|html] [--json] [--llms auto|always|never]
                           [--raw] [--allow-private] [--save-binary DIR] URL
       harnesskit webfetch extract --url BASE [--json] < page.html

Fetches URL the way an agent's webfetch tool does and prints what the model would read: a
metadata block and the page's main content as Markdown (or text, or HTML). Docs sites'
llms.txt files and per-page Markdown variants are used where they exist; redirects to other
sites are reported, not followed; local and private addresses are refused.

"extract" runs the same main-content extraction on an HTML document read from stdin, with
links made absolute against BASE, and prints the Markdown (or, with --json, an object with
title, byline, lang, markdown, text and metadata).

Flags:
  --format F         markdown (default), text or html
  --json             print the whole result as one JSON object instead of the rendered text
  --llms M           llms.txt probing: auto (docs sites only, default), always or never
  --raw              skip main-content extraction: render the whole page body
  --allow-private    allow loopback and private addresses (not cloud metadata addresses)
  --save-binary DIR  download binary files and save them under DIR
  --url BASE         (extract) the page's URL, used to resolve relative links

Exit codes: 0 the page was fetched (a refused redirect or a binary notice is a result, not
an error); 1 the fetch was refused or failed (the reason is on stdout as
{"error":{"kind":…,"message":…}}); 2 bad usage.
`

func webfetchCommand() command {
	return command{
		name:    "webfetch",
		summary: "fetch a URL for a model: main content as Markdown, SSRF-safe",
		usage:   webfetchUsage,
		verbs:   []verb{{name: "extract", run: func(_ context.Context, args []string, std stdio) int { return webfetchExtract(args, std) }}},
		run:     webfetchRun,
	}
}

// webfetchErrorKind names the error kinds of webfetch errors in {"error":{"kind":…}}.
func webfetchErrorKind(err error) string {
	kinds := []struct {
		err  error
		kind string
	}{
		{webfetch.ErrInvalidURL, "invalid_url"}, {webfetch.ErrInvalidRequest, "invalid_request"},
		{webfetch.ErrPermissionDenied, "permission_denied"}, {webfetch.ErrBlocked, "blocked"},
		{webfetch.ErrTimeout, "timeout"}, {webfetch.ErrTooManyRedirects, "too_many_redirects"},
		{webfetch.ErrMissingLocation, "missing_location"}, {webfetch.ErrStatus, "status"},
		{webfetch.ErrFilename, "filename"}, {webfetch.ErrTransport, "transport"}, {webfetch.ErrClosed, "closed"},
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return "error"
}

func webfetchRun(ctx context.Context, args []string, std stdio) int {
	fs := newFlagSet(std, "webfetch")
	format := fs.String("format", "markdown", "markdown, text or html")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	llms := fs.String("llms", "auto", "auto, always or never")
	raw := fs.Bool("raw", false, "skip main-content extraction")
	allowPrivate := fs.Bool("allow-private", false, "allow loopback and private addresses")
	saveDir := fs.String("save-binary", "", "save binary files under this directory")
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(std.out, webfetchUsage)
			return exitOK
		}
		fmt.Fprintf(std.err, "harnesskit webfetch: %v\n\n%s", err, webfetchUsage)
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(std.err, "harnesskit webfetch: want exactly one URL, got %d arguments\n\n%s", fs.NArg(), webfetchUsage)
		return exitUsage
	}
	switch *format {
	case "markdown", "text", "html":
	default:
		fmt.Fprintf(std.err, "harnesskit webfetch: --format %q: use markdown, text or html\n", *format)
		return exitUsage
	}
	switch *llms {
	case "auto", "always", "never":
	default:
		fmt.Fprintf(std.err, "harnesskit webfetch: --llms %q: use auto, always or never\n", *llms)
		return exitUsage
	}
	opts := []webfetch.Option{webfetch.WithoutCache()}
	if *allowPrivate {
		opts = append(opts, webfetch.WithSSRFPolicy(webfetch.SSRFPolicy{AllowLoopback: true, AllowPrivate: true}))
	}
	if *saveDir != "" {
		opts = append(opts, webfetch.WithBinaryDir(*saveDir))
	}
	f, err := webfetch.New(opts...)
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit webfetch: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	res, err := f.Fetch(ctx, webfetch.Request{
		URL:        fs.Arg(0),
		Format:     webfetch.Format(*format),
		LLMS:       webfetch.LLMSMode(*llms),
		WholePage:  *raw,
		SaveBinary: *saveDir != "",
	})
	if err != nil {
		if !*allowPrivate && allowPrivateWouldAdmit(err) {
			err = fmt.Errorf("%w; to fetch from a local or private server, pass --allow-private (cloud metadata addresses stay refused)", err)
		}
		return reportError(std, "webfetch", webfetchErrorKind(err), err)
	}
	if *asJSON {
		if err := writeJSON(std.out, res); err != nil {
			fmt.Fprintf(std.err, "harnesskit webfetch: %v\n", err)
			return exitUsage
		}
		return exitOK
	}
	out := webfetch.Render(res)
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	fmt.Fprint(std.out, out)
	return exitOK
}

// allowPrivateWouldAdmit reports a refusal that --allow-private lifts: a loopback or
// private address (not cloud metadata, link-local or a refused port).
func allowPrivateWouldAdmit(err error) bool {
	var e *webfetch.Error
	if !errors.As(err, &e) || !errors.Is(err, webfetch.ErrBlocked) {
		return false
	}
	switch e.Range {
	case "loopback", "private network", "carrier-grade NAT", "unique local address":
		return true
	}
	return false
}

// maxExtractInput bounds the document read by "webfetch extract".
const maxExtractInput = 32 << 20

// webfetchExtractJSON is the output of "webfetch extract --json".
type webfetchExtractJSON struct {
	Title    string         `json:"title"`
	Byline   string         `json:"byline"`
	Lang     string         `json:"lang"`
	Markdown string         `json:"markdown"`
	Text     string         `json:"text"`
	Metadata map[string]any `json:"metadata"`
}

func webfetchExtract(args []string, std stdio) int {
	fs := newFlagSet(std, "webfetch extract")
	base := fs.String("url", "", "the page's URL (base for relative links)")
	asJSON := fs.Bool("json", false, "print title, byline, lang, markdown, text and metadata as JSON")
	if code, ok := parseFlags(fs, webfetchUsage, args, std); !ok {
		return code
	}
	if *base == "" {
		fmt.Fprintf(std.err, "harnesskit webfetch extract: --url is required\n\n%s", webfetchUsage)
		return exitUsage
	}
	body, err := io.ReadAll(io.LimitReader(std.in, maxExtractInput+1))
	if err != nil {
		fmt.Fprintf(std.err, "harnesskit webfetch extract: reading stdin: %v\n", err)
		return exitUsage
	}
	if len(body) > maxExtractInput {
		fmt.Fprintf(std.err, "harnesskit webfetch extract: the document is larger than %d bytes\n", maxExtractInput)
		return exitUsage
	}
	ex, err := webfetch.Extract(body, "", *base, false)
	if err != nil {
		return reportError(std, "webfetch extract", webfetchErrorKind(err), err)
	}
	if !*asJSON {
		fmt.Fprintln(std.out, ex.Markdown)
		return exitOK
	}
	out := webfetchExtractJSON{
		Title: ex.Title, Byline: ex.Byline, Lang: ex.Lang, Markdown: ex.Markdown, Text: ex.Text,
		Metadata: map[string]any{
			"site_name":       ex.SiteName,
			"published_time":  ex.PublishedTime,
			"canonical_url":   ex.CanonicalURL,
			"headings":        ex.Headings,
			"extracted_main":  ex.ExtractedMain,
			"word_count":      ex.WordCount,
			"decoded_charset": ex.DecodedCharset,
		},
	}
	if err := writeJSON(std.out, out); err != nil {
		fmt.Fprintf(std.err, "harnesskit webfetch extract: %v\n", err)
		return exitUsage
	}
	return exitOK
}
