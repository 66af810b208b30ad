package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// writeJSON writes v as one line of JSON. HTML characters are not escaped: the output is
// read by programs and models, not embedded in pages.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// decodeStrict decodes one JSON value from data into v and refuses unknown fields and
// trailing data, so that a misspelt field is a usage error rather than a silent default.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// maxLine bounds one JSON-lines input line.
const maxLine = 16 << 20

// eachLine calls fn for each non-blank line of r, numbered from 1, until fn returns an
// error or ctx is done. It is the loop of the JSON-lines commands (one result per input).
func eachLine(ctx context.Context, r io.Reader, fn func(n int, line []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 1
	for ; sc.Scan(); n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("line %d exceeds %d MiB, the limit of one input line", n, maxLine>>20)
	} else if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	return nil
}
