package loopguard

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// refKind is L6 read straight off the four sets, the way classification worked before
// the sets were indexed into one map.
func refKind(c *config, tool string) toolKind {
	switch {
	case c.wait[tool]:
		return toolKind{class: classWait}
	case c.exempt[tool]:
		return toolKind{class: classExempt}
	case c.supervision[tool]:
		return toolKind{class: classSupervision}
	}
	return toolKind{class: classOrdinary, block: c.block[tool]}
}

func mustGuard(t testing.TB, opts ...Option) *Guard {
	t.Helper()
	g, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// manyNames makes the configuration name more than maxFewKinds tools, so that kindOf
// hashes instead of scanning.
var manyNames = func() []string {
	names := make([]string, maxFewKinds+4)
	for i := range names {
		names[i] = fmt.Sprintf("tool_%02d", i)
	}
	return names
}()

func TestKindOf(t *testing.T) {
	ordinary, block := toolKind{class: classOrdinary}, toolKind{class: classOrdinary, block: true}
	tests := []struct {
		name string
		opts []Option
		tool string
		want toolKind
	}{
		{name: "default_block_read", tool: "read", want: block},
		{name: "default_block_glob", tool: "glob", want: block},
		{name: "default_ordinary_bash", tool: "bash", want: ordinary},
		{name: "unknown_tool", tool: "no_such_tool", want: ordinary},
		{name: "empty_name", tool: "", want: ordinary},
		{name: "default_wait", tool: "wait_for_background_tasks", want: toolKind{class: classWait}},
		{name: "default_exempt", tool: "task_revive", want: toolKind{class: classExempt}},
		{name: "default_supervision", tool: "task_result", want: toolKind{class: classSupervision}},
		{name: "block_set_replaced", opts: []Option{WithBlockTools("bash")}, tool: "read", want: ordinary},
		{name: "block_set_replaced_new_member", opts: []Option{WithBlockTools("bash")}, tool: "bash", want: block},
		{name: "option_names_lower_cased", opts: []Option{WithBlockTools("BASH")}, tool: "bash", want: block},
		{name: "wait_beats_block", opts: []Option{WithWaitTools("read")}, tool: "read", want: toolKind{class: classWait}},
		{name: "exempt_beats_block", opts: []Option{WithExemptTools("grep")}, tool: "grep", want: toolKind{class: classExempt}},
		{name: "supervision_beats_block", opts: []Option{WithSupervisionTools("glob")}, tool: "glob", want: toolKind{class: classSupervision}},
		{name: "wait_beats_exempt", opts: []Option{WithWaitTools("task"), WithExemptTools("task")}, tool: "task", want: toolKind{class: classWait}},
		{name: "wait_beats_supervision", opts: []Option{WithWaitTools("task_status")}, tool: "task_status", want: toolKind{class: classWait}},
		{name: "exempt_beats_supervision", opts: []Option{WithExemptTools("task_status")}, tool: "task_status", want: toolKind{class: classExempt}},
		{name: "many_names_block", opts: []Option{WithBlockTools(manyNames...)}, tool: "tool_19", want: block},
		{name: "many_names_exempt_kept", opts: []Option{WithBlockTools(manyNames...)}, tool: "task", want: toolKind{class: classExempt}},
		{name: "many_names_unknown", opts: []Option{WithBlockTools(manyNames...)}, tool: "read", want: ordinary},
		{name: "empty_sets", opts: []Option{WithWaitTools(), WithExemptTools(), WithSupervisionTools(), WithBlockTools()}, tool: "task", want: ordinary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGuard(t, tc.opts...)
			if got := g.cfg.kindOf(tc.tool); got != tc.want {
				t.Errorf("kindOf(%q) = %+v, want %+v (config %#v)", tc.tool, got, tc.want, &g.cfg)
			}
			if ref := refKind(&g.cfg, tc.tool); ref != tc.want {
				t.Errorf("reference kind of %q = %+v, want %+v", tc.tool, ref, tc.want)
			}
		})
	}
}

// TestKindOfProperty: for any four sets drawn from a small universe of names, the index
// classifies every name as the sets do under L6.
func TestKindOfProperty(t *testing.T) {
	names := []string{"read", "grep", "bash", "task", "task_status", "wait_for_user", "x"}
	rapid.Check(t, func(t *rapid.T) {
		set := func(label string) []string {
			return rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, len(names), rapid.ID[string]).Draw(t, label)
		}
		g, err := New(WithBlockTools(set("block")...), WithExemptTools(set("exempt")...),
			WithWaitTools(set("wait")...), WithSupervisionTools(set("supervision")...))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if got, want := g.cfg.kindOf(name), refKind(&g.cfg, name); got != want {
				t.Fatalf("kindOf(%q) = %+v, want %+v (config %#v)", name, got, want, &g.cfg)
			}
		}
	})
}
