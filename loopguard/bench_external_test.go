package loopguard_test

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harnesskit/harnesskit/loopguard"
)

// Argument objects are built once, outside the timed loops, as a host holds them.
var (
	benchBashArgs   = json.RawMessage(bashUn)
	benchReadArgs   = json.RawMessage(aTS)
	benchStatusArgs = json.RawMessage(`{"task_id":"bg_7f3a9c"}`)
)

// typicalArgs is a 200-byte argument object of the kind models send to read or grep.
var typicalArgs = json.RawMessage(`{"filePath":"/home/dev/project/src/components/forms/CheckoutForm.tsx","offset":120,"limit":200,"options":{"lineNumbers":true,"encoding":"utf-8"},"reason":"inspect the submit handler code path now ok"}`)

// text4K returns a 4 KiB source-like output with the given variant in its first line.
func text4K(variant int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// variant %d\n", variant)
	for b.Len() < 4096 {
		fmt.Fprintf(&b, "%4d: const value%d = compute(\"%d\") // keep\n", b.Len(), b.Len(), b.Len())
	}
	return b.String()[:4096]
}

func mustGuard(b *testing.B, opts ...loopguard.Option) *loopguard.Guard {
	g, err := loopguard.New(opts...)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// pair runs one Before+After; outputs alternate so the streak restarts (no notice, no
// refusal): the path every ordinary call takes.
func benchPair(b *testing.B, g *loopguard.Guard, tool string, args json.RawMessage, outs [2]string) {
	if len(typicalArgs) != 200 {
		b.Fatalf("typicalArgs is %d bytes, want 200", len(typicalArgs))
	}
	ids := make([]string, 1024)
	for i := range ids {
		ids[i] = "call-" + strconv.Itoa(i)
	}
	b.SetBytes(int64(len(args) + len(outs[0])))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c := loopguard.Call{Session: "s1", CallID: ids[i%len(ids)], Tool: tool, Args: args}
		if err := g.Before(c); err != nil {
			b.Fatal(err)
		}
		if v := mustAfter(b, g, c, loopguard.TextOutput(outs[i&1])); v.Notice != "" {
			b.Fatal("unexpected notice")
		}
	}
}

func BenchmarkBeforeAfter(b *testing.B) {
	b.Run("typical-200B-args-4KiB-output", func(b *testing.B) {
		benchPair(b, mustGuard(b), "read", typicalArgs, [2]string{text4K(0), text4K(1)})
	})
	b.Run("same-call", func(b *testing.B) {
		benchPair(b, mustGuard(b), "read", json.RawMessage(aTS), [2]string{aText, aText + " "})
	})
	b.Run("args-64KiB", func(b *testing.B) {
		var sb strings.Builder
		sb.WriteString(`{"edits":[`)
		for i := 0; sb.Len() < 64<<10; i++ {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"newString":"line %d\nwith \"quotes\"","oldString":"old %d","meta":{"z":%d,"a":[%d.5,true,null]}}`, i, i, i, i)
		}
		sb.WriteString(`],"filePath":"big.ts"}`)
		benchPair(b, mustGuard(b), "edit", json.RawMessage(sb.String()), [2]string{"ok", "ok "})
	})
	b.Run("baseline-sha256-4KiB", func(b *testing.B) {
		// Not the guard: SHA-256 of the 4 KiB output alone, for comparison with the
		// typical pair on the same machine and load.
		out := []byte(text4K(0))
		b.SetBytes(int64(len(out)))
		b.ReportAllocs()
		for b.Loop() {
			sha256.Sum256(out)
		}
	})
	b.Run("notice-every-call", func(b *testing.B) {
		g := mustGuard(b)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			c := loopguard.Call{Session: "s1", CallID: "c", Tool: "bash", Args: benchBashArgs}
			if err := g.Before(c); err != nil {
				b.Fatal(err)
			}
			mustAfter(b, g, c, loopguard.TextOutput("Linux\n"))
		}
	})
}

func BenchmarkAfter(b *testing.B) {
	b.Run("output-1MiB", func(b *testing.B) {
		g := mustGuard(b)
		outs := [2]string{strings.Repeat("x", 1<<20), strings.Repeat("y", 1<<20)}
		b.SetBytes(1 << 20)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			c := loopguard.Call{Session: "s1", CallID: "c", Tool: "read", Args: benchReadArgs}
			if err := g.Before(c); err != nil {
				b.Fatal(err)
			}
			mustAfter(b, g, c, loopguard.TextOutput(outs[i&1]))
		}
	})
}

func BenchmarkSessions(b *testing.B) {
	b.Run("lru-churn", func(b *testing.B) {
		g := mustGuard(b)
		names := make([]string, 10_000)
		for i := range names {
			names[i] = "session-" + strconv.Itoa(i)
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			c := loopguard.Call{Session: names[i%len(names)], CallID: "c", Tool: "read", Args: benchReadArgs}
			if err := g.Before(c); err != nil {
				b.Fatal(err)
			}
			mustAfter(b, g, c, loopguard.TextOutput(aText))
		}
		if g.Len() != loopguard.DefaultMaxSessions {
			b.Fatalf("Len %d", g.Len())
		}
	})
}

func BenchmarkSupervision(b *testing.B) {
	b.Run("parse", func(b *testing.B) {
		g := mustGuard(b)
		var sb strings.Builder
		sb.WriteString("Task explorer (bg_7f3a9c) — background task\n")
		for sb.Len() < 4000 {
			sb.WriteString("progress: scanning src/components and collecting matches for the report\n")
		}
		sb.WriteString("state: running\n")
		outs := [2]string{sb.String(), strings.Replace(sb.String(), "state: running", "state: queued ", 1)}
		b.SetBytes(int64(len(outs[0])))
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			c := loopguard.Call{Session: "s1", CallID: "c", Tool: "task_status", Args: benchStatusArgs}
			if err := g.Before(c); err != nil {
				b.Fatal(err)
			}
			if v := mustAfter(b, g, c, loopguard.TextOutput(outs[i&1])); v.Stream != loopguard.StreamSupervision {
				b.Fatalf("stream %v", v.Stream)
			}
		}
	})
}

func BenchmarkParallel(b *testing.B) {
	g := mustGuard(b)
	outs := [2]string{text4K(0), text4K(1)}
	var worker atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := worker.Add(1)
		session := "s" + strconv.FormatInt(w%64, 10)
		id := "c" + strconv.FormatInt(w, 10)
		for i := 0; pb.Next(); i++ {
			c := loopguard.Call{Session: session, CallID: id, Tool: "read", Args: typicalArgs}
			if err := g.Before(c); err == nil {
				if _, err := g.After(c, loopguard.TextOutput(outs[i&1])); err != nil {
					panic(err)
				}
			}
		}
	})
}
