package wfs

import (
	"bytes"
	"testing"
)

// journalSeed is a journal of the shape a three-file commit writes (keep in sync with the
// commit's records).
const journalSeed = `{"wfs":1,"id":"00112233445566ff","pid":7,"root":"/w"}
{"mkdir":["/w/new","/w/new/dir"]}
{"op":{"kind":"write","name":"/w/a.txt","temp":"/w/.a.txt.hk-0000000000000001.tmp","aside":"/w/.a.txt.hk-0000000000000002.old","keep":"link","old":{"type":"file","size":2,"crc32c":"aa"},"new":{"type":"file","size":3,"crc32c":"bb"}}}
{"op":{"kind":"delete","name":"/w/c.txt","aside":"/w/.c.txt.hk-0000000000000003.old","keep":"link","old":{"type":"file","size":2,"crc32c":"cc"}}}
{"keep":{"op":1,"how":"move"}}
{"mark":"commit"}
{"placeholder":{"op":0}}
{"mark":"rollback"}
`

// FuzzParseJournal: any bytes parse without a panic, and a journal cut short by a crash (a
// prefix of a valid one) parses to a prefix of what the whole one says — never to more, never
// to something else.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(journalSeed), 200)
	f.Add([]byte(journalSeed), 60)
	f.Add([]byte(`{"wfs":1,"id":"x"}`+"\n"+`{"op":{"kind":"write","name":"/a"}}`), 30)
	f.Add([]byte("{}\n"), 1)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		p, err := parseJournal(b)
		if err != nil {
			return
		}
		if cut < 0 || cut > len(b) {
			return
		}
		q, err := parseJournal(b[:cut])
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
	p, err := parseJournal([]byte(journalSeed))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ops) != 2 || p.ops[1].Keep != keepMove || !p.ops[0].Placeholder || !p.commit || !p.rollback || len(p.mkdir) != 2 {
		t.Fatalf("parsed %+v", p)
	}
	// Cut inside the commit mark: the commit did not get past it.
	i := bytes.Index([]byte(journalSeed), []byte(`{"mark":"commit"}`))
	q, err := parseJournal([]byte(journalSeed)[:i+8])
	if err != nil || q.commit || len(q.ops) != 2 || q.ops[1].Keep != keepMove {
		t.Fatalf("a journal cut in its commit mark parsed as %+v, %v", q, err)
	}
	if _, err := parseJournal([]byte("garbage\n")); err == nil {
		t.Fatal("a journal without a header parsed")
	}
}
