package wfs

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// journalSeed is a journal of the shape a three-file commit writes (keep in sync with the
// commit's records), without its MACs: sign adds them.
const journalSeed = `{"wfs":2,"id":"00112233445566ff","pid":7,"root":"/w"}
{"mkdir":["/w/new","/w/new/dir"]}
{"op":{"kind":"write","name":"/w/a.txt","temp":"/w/.a.txt.hk-0000000000000001.tmp","aside":"/w/.a.txt.hk-0000000000000002.old","keep":"link","old":{"type":"file","size":2,"crc32c":"aa"},"new":{"type":"file","size":3,"crc32c":"bb"}}}
{"op":{"kind":"delete","name":"/w/c.txt","aside":"/w/.c.txt.hk-0000000000000003.old","keep":"link","old":{"type":"file","size":2,"crc32c":"cc"}}}
{"keep":{"op":1,"how":"move"}}
{"mark":"commit"}
{"placeholder":{"op":0}}
{"mark":"rollback"}
`

var testKey = bytes.Repeat([]byte{0x5a}, 32)

// sign gives every complete line of plain its chained MAC under key, as a writer does.
func sign(key []byte, plain string) []byte {
	var out []byte
	var mac []byte
	lines := strings.SplitAfter(plain, "\n")
	for _, l := range lines {
		body, nl := strings.CutSuffix(l, "\n")
		if !nl {
			out = append(out, body...)
			break
		}
		mac = chainMAC(key, mac, []byte(body))
		out = append(out, body...)
		out = append(out, ' ')
		out = hex.AppendEncode(out, mac)
		out = append(out, '\n')
	}
	return out
}

// FuzzParseJournal: any bytes parse without a panic, signed or not; unsigned bytes never
// parse; and a signed journal cut short by a crash (a prefix of a valid one) parses to a
// prefix of what the whole one says — never to more, never to something else.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(journalSeed), 200, true)
	f.Add([]byte(journalSeed), 60, true)
	f.Add([]byte(journalSeed), 60, false)
	f.Add([]byte(`{"wfs":2,"id":"x"}`+"\n"+`{"op":{"kind":"write","name":"/a"}}`+"\n"), 30, true)
	f.Add([]byte("{}\n"), 1, false)
	f.Fuzz(func(t *testing.T, plain []byte, cut int, signed bool) {
		b := plain
		if signed {
			b = sign(testKey, string(plain))
		}
		p, err := parseJournal(b, testKey)
		if err != nil {
			return
		}
		if !signed && !bytes.Equal(b, sign(testKey, string(plain))) {
			// Parsing unsigned bytes means forging a MAC: only bytes that happen to be a
			// signed journal may parse.
			t.Fatalf("unsigned bytes parsed: %q", b)
		}
		if _, err := parseJournal(b, bytes.Repeat([]byte{1}, 32)); err == nil {
			t.Fatal("a journal verified under another key")
		}
		if cut < 0 || cut > len(b) {
			return
		}
		q, err := parseJournal(b[:cut], testKey)
		if err != nil {
			return // the header itself was cut
		}
		if len(q.ops) > len(p.ops) || len(q.mkdir) > len(p.mkdir) || len(q.scratch) > len(p.scratch) ||
			q.commit && !p.commit || q.rollback && !p.rollback {
			t.Fatalf("the prefix says more than the whole journal: %+v vs %+v", q, p)
		}
		for i := range q.ops {
			if q.ops[i].Name != p.ops[i].Name || q.ops[i].Kind != p.ops[i].Kind {
				t.Fatalf("op %d differs in the prefix: %+v vs %+v", i, q.ops[i], p.ops[i])
			}
		}
	})
}

func TestParseJournalSeed(t *testing.T) {
	signed := sign(testKey, journalSeed)
	p, err := parseJournal(signed, testKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ops) != 2 || p.ops[1].Keep != keepMove || !p.ops[0].Placeholder || !p.commit || !p.rollback || len(p.mkdir) != 2 {
		t.Fatalf("parsed %+v", p)
	}
	// Cut inside the commit mark: the commit did not get past it.
	i := bytes.Index(signed, []byte(`{"mark":"commit"}`))
	q, err := parseJournal(signed[:i+8], testKey)
	if err != nil || q.commit || len(q.ops) != 2 || q.ops[1].Keep != keepMove {
		t.Fatalf("a journal cut in its commit mark parsed as %+v, %v", q, err)
	}
	// A line whose MAC is wrong ends the journal there, as a crash would.
	bad := bytes.Replace(signed, []byte(`"mark":"commit"`), []byte(`"mark":"commiT"`), 1)
	if q, err := parseJournal(bad, testKey); err != nil || q.commit || q.rollback {
		t.Fatalf("a line with a stale MAC counted: %+v, %v", q, err)
	}
	for name, b := range map[string][]byte{
		"no header":          []byte("garbage\n"),
		"unsigned":           []byte(journalSeed),
		"other key":          sign(bytes.Repeat([]byte{1}, 32), journalSeed),
		"empty":              nil,
		"NUL-filled":         make([]byte, 4096),
		"version 1 unsigned": []byte(`{"wfs":1,"id":"00112233445566ff","pid":7,"root":"/w"}` + "\n"),
	} {
		if _, err := parseJournal(b, testKey); err == nil {
			t.Errorf("%s: a journal parsed", name)
		}
	}
}
