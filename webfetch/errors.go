package webfetch

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinels for errors.Is. Every error returned by [Fetcher.Fetch] and [New]
// wraps exactly one of them (transport failures wrap ErrTransport).
var (
	// ErrInvalidURL: the URL is not an absolute http(s) URL, carries credentials, is too long,
	// or its host cannot be converted to ASCII.
	ErrInvalidURL = errors.New("webfetch: invalid URL")
	// ErrInvalidRequest: a request field or option is out of range.
	ErrInvalidRequest = errors.New("webfetch: invalid request")
	// ErrPermissionDenied: the permission hook refused the call.
	ErrPermissionDenied = errors.New("webfetch: permission denied")
	// ErrBlocked: the network policy refused to connect (loopback, private, metadata
	// addresses, a refused port).
	ErrBlocked = errors.New("webfetch: blocked by network policy")
	// ErrTimeout: the call's deadline expired.
	ErrTimeout = errors.New("webfetch: timeout")
	// ErrTooManyRedirects: more than 10 redirects; the error is a *RedirectError.
	ErrTooManyRedirects = errors.New("webfetch: too many redirects")
	// ErrMissingLocation: a redirect without a usable Location header.
	ErrMissingLocation = errors.New("webfetch: redirect without location")
	// ErrStatus: the final response had a non-2xx status; the error is a *StatusError.
	ErrStatus = errors.New("webfetch: unsuccessful status")
	// ErrFilename: a binary could not be saved: the binary directory is not private or
	// cannot be created or opened, the write failed, or no unique file name was left.
	ErrFilename = errors.New("webfetch: no unique file name")
	// ErrTransport: the connection or the body read failed.
	ErrTransport = errors.New("webfetch: transport error")
	// ErrClosed: the Fetcher was closed.
	ErrClosed = errors.New("webfetch: fetcher closed")
)

// Error is the detailed error of this package. Msg is the text a model reads; Err is the
// sentinel; Cause, when set, is the underlying error (for example context.Canceled).
type Error struct {
	Err   error
	URL   string
	Msg   string
	Cause error
	// Range, for ErrBlocked, names what the policy refused: the address range ("loopback",
	// "private network", "carrier-grade NAT", "unique local address", "link-local",
	// "cloud metadata", …), or "port" for a port outside SSRFPolicy.Ports. Loopback names
	// such as localhost report "loopback". Empty for other errors.
	Range string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the sentinel and the cause, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}

func newErr(sentinel error, url, format string, args ...any) *Error {
	return &Error{Err: sentinel, URL: url, Msg: fmt.Sprintf(format, args...)}
}

// StatusError reports a final response with a non-2xx status. It unwraps to ErrStatus.
type StatusError struct {
	Code                int
	CloudflareChallenge bool
	URL                 string
}

func (e *StatusError) Error() string {
	if e.CloudflareChallenge {
		return fmt.Sprintf("Request failed with status code: %d (Cloudflare bot challenge: this site refuses automated clients; use another source)", e.Code)
	}
	return fmt.Sprintf("Request failed with status code: %d", e.Code)
}

// Unwrap returns ErrStatus.
func (e *StatusError) Unwrap() error { return ErrStatus }

// RedirectError reports a redirect chain that exceeded the limit. It unwraps to
// ErrTooManyRedirects and carries the hops followed.
type RedirectError struct {
	Chain []Hop
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("Too many redirects (exceeded %d)", maxRedirects)
}

// Unwrap returns ErrTooManyRedirects.
func (e *RedirectError) Unwrap() error { return ErrTooManyRedirects }

func optionErr(name, format string, args ...any) error {
	return &Error{Err: ErrInvalidRequest, Msg: "webfetch: option " + name + ": " + fmt.Sprintf(format, args...)}
}

func quoteList(vals ...string) string {
	return `"` + strings.Join(vals, `", "`) + `"`
}
