package loopguard

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Canonical appends the canonical serialisation of the raw JSON value src to dst and
// returns the extended buffer. It is the argument identity the guard hashes:
//
//   - nil or empty src → the token undefined (an absent argument object);
//   - objects with keys sorted byte-wise, duplicate keys resolved last-wins, no whitespace;
//   - arrays in order; strings escaped as encoding/json does without HTML escaping;
//   - numbers as float64 printed by strconv.FormatFloat(f, 'g', -1, 64), -0 as 0, so 1
//     and 1.0 are the same argument;
//   - anything encoding/json does not decode into an interface value (bad syntax,
//     trailing data, a number out of float64 range, nesting deeper than 10000) → the token
//     raw: followed by src unchanged.
//
// Canonical never fails. Two inputs get the same serialisation exactly when they decode
// to equal values, so key order and spacing never matter.
func Canonical(dst, src []byte) []byte {
	if len(src) == 0 {
		return append(dst, "undefined"...)
	}
	var v any
	if json.Unmarshal(src, &v) != nil {
		return append(append(dst, "raw:"...), src...)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// A decoded value always encodes (map keys are sorted by encoding/json); the error
	// branch only keeps the function total.
	if enc.Encode(formatNumbers(v)) != nil {
		return append(append(dst, "raw:"...), src...)
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
}

// formatNumbers replaces, in place, every number of a decoded JSON value by its canonical
// spelling, so that the encoder prints it as it is.
func formatNumbers(v any) any {
	switch v := v.(type) {
	case float64:
		if v == 0 {
			v = 0 // -0 prints as 0
		}
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
	case []any:
		for i, e := range v {
			v[i] = formatNumbers(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = formatNumbers(e)
		}
	}
	return v
}
