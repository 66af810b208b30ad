package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// writeJSON writes v as one line of JSON. HTML characters are not escaped: the output is
// read by programs and models, not embedded in pages.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// A jsonShape names what a JSON input should be, for decoding errors: "event object",
// an example of one, and its field names.
type jsonShape struct {
	noun, example, fields string
	unit                  string // what holds the value, "line" for JSON lines; "" means "input"
}

func (s jsonShape) within() string {
	if s.unit == "" {
		return "input"
	}
	return s.unit
}

// decodeStrict decodes one JSON value from data into v and refuses unknown fields and
// trailing data, so that a misspelt field is a usage error rather than a silent default.
// Its errors say where data is wrong ("column C", or "line L, column C" when data spans
// several lines; columns count characters from 1) and what was expected there, instead of
// the JSON decoder's own wording.
func decodeStrict(data []byte, v any, shape jsonShape) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n")
		if len(rest) > 0 {
			return fmt.Errorf("%s: expected the end of the %s after the %s, found %s", position(data, len(data)-len(rest)), shape.within(), shape.noun, foundAt(rest))
		}
		return nil
	case errors.As(err, &syn):
		at := max(int(syn.Offset)-1, 0) // the offending byte
		return fmt.Errorf("%s: expected %s, found %s", position(data, at), syntaxExpected(syn.Error(), shape), foundAt(data[at:]))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("%s: the %s ends inside the %s: expected the rest of it (a closing quote, bracket or brace is missing)", position(data, len(data)), shape.within(), shape.noun)
	case errors.As(err, &typ):
		at := max(int(typ.Offset)-1, 0)
		if typ.Field == "" {
			return fmt.Errorf("%s: expected an %s such as %s, found %s", position(data, at), shape.noun, shape.example, article(typ.Value))
		}
		// The offset is past the value; point at its start, after the field's colon.
		at = bytes.LastIndexByte(data[:at], ':') + 1
		at += len(data[at:]) - len(bytes.TrimLeft(data[at:], " \t\r\n"))
		return fmt.Errorf("%s: expected %s for %q, found %s", position(data, at), typeWanted(typ.Type), typ.Field, article(typ.Value))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		at := bytes.Index(data, []byte(name))
		return fmt.Errorf("%s: unknown field %s: expected one of %s", position(data, max(at, 0)), name, shape.fields)
	}
	return err
}

// position says where byte offset at of data is: "column C", or "line L, column C" when
// data holds more than one line. Columns count characters from 1.
func position(data []byte, at int) string {
	at = min(at, len(data))
	line := bytes.Count(data[:at], []byte("\n")) + 1
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	col := utf8.RuneCount(data[start:at]) + 1
	if bytes.IndexByte(bytes.TrimRight(data, "\r\n"), '\n') < 0 {
		return fmt.Sprintf("column %d", col)
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}

// typeWanted names the JSON a Go type takes, for "expected … for field".
func typeWanted(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a string"
}

// foundAt describes what starts rest: its first character, quoted, or the end of the input.
func foundAt(rest []byte) string {
	if len(rest) == 0 {
		return "the end of the input"
	}
	r, _ := utf8.DecodeRune(rest)
	return strconv.QuoteRune(r)
}

// article puts "a" or "an" before a JSON type name ("number", "array", "object").
func article(what string) string {
	if what != "" && strings.ContainsRune("aeiou", rune(what[0])) {
		return "an " + what
	}
	return "a " + what
}

// syntaxExpected turns the context of a JSON syntax error ("… looking for beginning of
// value") into what was expected at that place.
func syntaxExpected(msg string, shape jsonShape) string {
	for _, c := range []struct{ context, expected string }{
		{"looking for beginning of object key string", `a field name in double quotes`},
		{"looking for beginning of value", `a JSON value (a string, number, object, array, true, false or null)`},
		{"after object key:value pair", `"," or "}" after a field's value`},
		{"after object key", `":" after the field name`},
		{"after array element", `"," or "]" after an array element`},
		{"after top-level value", `the end of the ` + shape.within() + ` after the ` + shape.noun},
		{"in string escape code", `an escape such as \n, \", \\ or \u00e9 after the backslash`},
		{"in \\u hexadecimal character escape", `four hexadecimal digits after \u`},
		{"in string literal", `a character allowed in a string (escape control characters such as a tab as \t)`},
		{"in numeric literal", `a digit`},
		{"in literal true", `the literal true`},
		{"in literal false", `the literal false`},
		{"in literal null", `the literal null`},
		{"exceeded max depth", `at most 10000 nested arrays and objects`},
	} {
		if strings.Contains(msg, c.context) {
			return c.expected
		}
	}
	return "valid JSON"
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
