package patch

import (
	"context"
	"errors"
	"testing"
)

// FuzzApply applies arbitrary patch text to an arbitrary file. It must never panic; every
// failure is an *Error of a known kind; and when Apply succeeds, applying the Rewrite of the
// same text gives the same file. Seeds follow the Example functions and the edge cases.
func FuzzApply(f *testing.F) {
	seeds := []struct{ file, patch string }{
		{"package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n",
			"*** Begin Patch\n*** Update File: f.txt\n@@ func greet() string {\n-\treturn \"hello\"\n+\treturn \"hello, world\"\n*** End Patch\n"},
		{"x\nprint(\u201ca\u201d)\nvalue = 1\nend\n",
			"*** Begin Patch\n*** Update File: f.txt\n@@\n print(\"a\")\n-value = 2\n+value = 3\n end\n*** End Patch\n"},
		{"one\r\ntwo\r\nthree\r\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n-one\n+uno\n@@\n two\n+\n+between\n three\n*** End Patch\n"},
		{"\ufeffa\nb", "*** Begin Patch\n*** Update File: f.txt\n@@\n+c\n*** End of File\n*** End Patch"},
		{"a:\n  enabled: false\nb:\n    enabled: false\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n-enabled: false\n+enabled: true\n*** End Patch\n"},
		{"top\nA\nB\nC\nD\nE\nbottom\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n A\n-Bx\n+B\n C\n D\n-E\n+X\n*** End Patch\n"},
		{"a\n", "*** Begin Patch\n*** Add File: n.txt\n+x\n*** Update File: f.txt\n*** Move to: g.txt\n@@\n-a\n+b\n*** Delete File: n.txt\n*** End Patch\n"},
		{"anchor\nx\n", "<<'EOF'\n*** Begin Patch\n*** Update File: f.txt\n@@ anchor\n+middle\n*** End Patch\nEOF\n"},
		{"a\rb\r", "*** Begin Patch\n*** Update File: ../f.txt\n@@\n-a\n+A\n*** End Patch\n"},
		{"", "*** Begin Patch\n*** End Patch\n"},
		// The amendment: a unified-diff header, chunks out of order, a change already applied,
		// a left-out context line, a changed removed line.
		{"l1\nl2\nl3\nl4\n", "*** Begin Patch\n*** Update File: f.txt\n@@ -2,2 +2,2 @@\n l2\n-l3\n+L3\n*** End Patch\n"},
		{"l1\nl2\nl3\nl4\nl5\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n l4\n-l5\n+L5\n@@\n l1\n-l2\n+L2\n*** End Patch\n"},
		{"a\nB\nc\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n c\n*** End Patch\n"},
		{"import os\nimport codecs\nimport sys\n\nprint(1)\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n import os\n-import sys\n+import sys, json\n \n print(1)\n*** End Patch\n"},
		{"x\nconst n = 22\ny\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n x\n-const n = 16\n+const n = 32\n y\n*** End Patch\n"},
		// Re-indented closers: a loose match whose context line beside the added lines, or
		// whose removed line, is a nearby file line as written.
		{"a() {\n  b() {\n    c();\n  }\n}\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n   c();\n }\n+d();\n*** End Patch\n"},
		{"      a();\n    });\n  });\n});\n", "*** Begin Patch\n*** Update File: f.txt\n@@\n     a();\n-  });\n+  }); // inner\n });\n*** End Patch\n"},
	}
	for _, s := range seeds {
		f.Add(s.file, s.patch)
	}
	f.Fuzz(func(t *testing.T, file, text string) {
		files := map[string][]byte{"f.txt": []byte(file)}
		m, a := propApplier(t, files, rescue(func(r *RescueOptions) { r.WorkLimit = 200_000 }))
		_, err := a.Apply(context.Background(), text)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || !pe.Kind.valid() {
				t.Fatalf("error %v (%T) is not a *patch.Error with a known kind", err, err)
			}
			if pe.Kind == KindBlocked && len(m.Calls()) != 0 {
				t.Fatalf("blocked patch made calls: %v", m.Calls())
			}
			return
		}
		got := m.Tree()
		_, b := propApplier(t, files, rescue(func(r *RescueOptions) { r.WorkLimit = 200_000 }))
		rw, err := b.Rewrite(context.Background(), text)
		if err != nil {
			t.Fatalf("Apply succeeded but Rewrite failed: %v", err)
		}
		m2, c := propApplier(t, files, rescue(func(r *RescueOptions) { r.WorkLimit = 200_000 }))
		if _, err := c.Apply(context.Background(), rw.Text); err != nil {
			t.Fatalf("Apply of the rewrite failed: %v\nrewrite:\n%q", err, rw.Text)
		}
		if d := wfsDiff(got, m2.Tree()); d != "" {
			t.Fatalf("Apply(P) and Apply(Rewrite(P)) differ:\n%s\nrewrite:\n%q", d, rw.Text)
		}
	})
}
