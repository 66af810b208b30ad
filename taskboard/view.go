package taskboard

import (
	"fmt"
	"strings"
)

// promptView is the background-task section of an orchestrator's prompt: Text is what the
// prompt shows; shown lists the "Needs acknowledgement" lines, which a later parent idle
// acknowledges.
type promptView struct {
	Text  string
	shown []shownEntry
}

// maxViewResult bounds the result line under "Needs acknowledgement".
const maxViewResult = 500

// view renders parentID's records. Sections, each omitted when empty: Running:,
// Needs acknowledgement:, Reusable:, Retained/Recovery:. A reusable record that read
// context files gets a second line listing up to 8 of them; a reconciled record that
// timed out is listed under Retained/Recovery. Provisional records, records
// uncertain for longer than HideUncertainAfter, and reusable or retained records unused for
// longer than HideAgedAfter are hidden. It reads the clock but changes nothing.
func (b *Board) view(parentID string) promptView {
	now := b.now()
	t := b.opts.Timing
	var running, needs, reusable, retained []string
	var shown []shownEntry
	for _, r := range b.ordered(parentID) {
		if r.Provisional {
			continue
		}
		if r.StatusUncertain && !r.StatusUncertainSince.IsZero() && now.Sub(r.StatusUncertainSince) > t.HideUncertainAfter {
			continue
		}
		line := "- " + escapeView(r.Alias) + " (" + escapeView(r.TaskID) + ") [" + escapeView(r.Agent) + "] " +
			label(*r) + ": " + escapeView(oneLine(r.Description))
		switch {
		case r.State == StateRunning:
			running = append(running, line)
		case r.TerminalUnreconciled:
			needs = append(needs, line, "  result: "+escapeView(truncateRunes(oneLine(r.ResultSummary), maxViewResult)))
			shown = append(shown, shownEntry{TaskID: r.TaskID, Generation: r.Generation, TerminalRevision: r.TerminalRevision})
		default:
			if now.Sub(r.LastUsedAt) > t.HideAgedAfter {
				continue
			}
			if r.reusable(b.opts.MaxContextLines) && !r.TimedOut {
				reusable = append(reusable, line)
				if c := contextLine(r.contextFiles); c != "" {
					reusable = append(reusable, c)
				}
			} else {
				retained = append(retained, line)
			}
		}
	}
	var sb strings.Builder
	for _, sec := range []struct {
		title string
		lines []string
	}{
		{"Running:", running}, {"Needs acknowledgement:", needs},
		{"Reusable:", reusable}, {"Retained/Recovery:", retained},
	} {
		if len(sec.lines) == 0 {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(sec.title + "\n")
		for _, l := range sec.lines {
			sb.WriteString(l + "\n")
		}
	}
	return promptView{Text: sb.String(), shown: shown}
}

// label is a record's label in the prompt view.
func label(r Record) string {
	switch {
	case r.State == StateRunning:
		l := "running"
		if r.TaskGeneration > 1 {
			l = "running [resumed]"
		}
		if r.StatusUncertain {
			l += ", status uncertain"
		}
		if r.TimedOut {
			l += ", timed out"
		}
		return l
	case r.State == StateStopped && r.TerminalUnreconciled:
		return "stopped, unreconciled, task_revive only"
	case r.State == StateStopped:
		return "stopped, task_revive only"
	case r.TerminalUnreconciled:
		l := string(r.State) + ", unreconciled"
		if r.TimedOut {
			l += ", timed out"
		}
		return l
	case r.State == StateReconciled:
		switch {
		case r.StatusUncertain:
			return string(r.TerminalState) + ", status uncertain"
		case r.TimedOut:
			return string(r.TerminalState) + ", timed out"
		}
		return string(r.TerminalState) + ", reconciled"
	}
	return string(r.State)
}

// contextLine lists up to maxContextFilesShown context files of a reusable record, most
// recently read first: "  context: a.go (120 lines), b.go (30 lines)".
func contextLine(files []contextFile) string {
	if len(files) == 0 {
		return ""
	}
	if len(files) > maxContextFilesShown {
		files = files[:maxContextFilesShown]
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = fmt.Sprintf("%s (%d lines)", escapeView(oneLine(f.Path)), f.Lines)
	}
	return "  context: " + strings.Join(parts, ", ")
}

var viewEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeView(s string) string { return viewEscaper.Replace(s) }

// oneLine collapses every whitespace run (newlines included) into one space.
func oneLine(s string) string { return collapseSpace(s) }

func truncateRunes(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n])
}
