package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// View draws the screen: a header, the calls, the selected call's detail
// (or a confirmation), a status line and the keys. Every line fits the
// width and the whole fits the height.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "gitguard ui"
	return v
}

func (m *Model) render() string {
	var lines []string
	switch m.mode {
	case modeHelp:
		lines = m.helpLines()
	case modeRuns:
		lines = m.runLines()
	default:
		lines = append(lines, m.headerLine(), m.st.header.Render(m.columns()))
		lines = append(lines, m.listLines()...)
		lines = append(lines, m.detailTitle())
		lines = append(lines, strings.Split(m.vp.View(), "\n")...)
		lines = append(lines, m.statusLine(), m.help.ShortHelpView(m.keys.ShortHelp()))
	}
	return m.fit(lines)
}

// fit cuts lines to the width and the count to the height.
func (m *Model) fit(lines []string) string {
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) headerLine() string {
	run := m.run
	if run == "" {
		run = "(none)"
	}
	state := ""
	for _, r := range m.runs {
		if r.ID == m.run {
			switch {
			case r.Active:
				state = " (active)"
			case r.Finished:
				state = " (finished)"
			}
		}
	}
	if p := m.picked; p.Newest && p.ID == m.run {
		// No run was named or active: say that this is the newest one.
		state += " · newest here, none active"
		if len(p.EndedWith) > 0 {
			ids := make([]string, len(p.EndedWith))
			for i, id := range p.EndedWith {
				ids[i] = clean(id)
			}
			state += " · ended with it: " + strings.Join(ids, ",")
		}
	}
	s := fmt.Sprintf("gitguard ui · run %s%s · %d calls", clean(run), state, len(m.calls))
	if m.filter != "" {
		s += fmt.Sprintf(" · %d shown, filter %q", len(m.shown), m.filter)
	}
	s += " · markers " + onOff(m.markers)
	return m.st.title.Render(s)
}

// Column widths of a call row.
const (
	colTime   = 8
	colCall   = 12
	colTool   = 14
	colStatus = 10
	colCounts = 12
)

func (m *Model) columns() string {
	paths := max(m.width-2-colTime-1-colCall-1-colTool-1-colStatus-1-colCounts, 5)
	return fmt.Sprintf("  %-*s %-*s %-*s %-*s %-*s%*s", colTime, "TIME", colCall, "CALL", colTool, "TOOL", colStatus, "STATUS", paths, "PATHS", colCounts, "+ADD -DEL")
}

func (m *Model) listLines() []string {
	rows := m.listRows()
	var out []string
	switch {
	case m.loading && len(m.calls) == 0:
		out = append(out, "  reading the run…")
	case len(m.calls) == 0 && m.run != "":
		out = append(out, "  no calls recorded in this run yet")
	case len(m.shown) == 0 && m.filter != "":
		out = append(out, fmt.Sprintf("  no call touched a path matching %q (/ then esc clears the filter)", m.filter))
	}
	for i := m.top; i < len(m.shown) && i < m.top+rows; i++ {
		out = append(out, m.row(m.calls[m.shown[i]], i == m.sel))
	}
	for len(out) < rows {
		out = append(out, "")
	}
	return out
}

// row draws one call: marker, time, tool, status, paths with their state,
// line counts. Paths come from the ledger; states and counts once loaded.
func (m *Model) row(c *record.Call, selected bool) string {
	pathsW := max(m.width-2-colTime-1-colCall-1-colTool-1-colStatus-1-colCounts, 5)
	marker := "  "
	if selected {
		marker = "> "
	}
	d := m.details[c.Ledger.CallID]
	paths, counts := m.rowPaths(c, d), "…"
	if d != nil && d.insp != nil {
		counts = fmt.Sprintf("+%d -%d", d.insp.Added, d.insp.Removed)
	} else if d != nil && d.err != nil {
		counts = "error"
	} else if len(c.Patches) == 0 {
		counts = ""
	}
	status := callStatus(c)
	line := fmt.Sprintf("%s%-*s %-*s %-*s %s%s %s%*s", marker, colTime, callTime(c), colCall, cut(clean(c.Ledger.CallID), colCall),
		colTool, cut(clean(c.Ledger.ToolName), colTool),
		m.st.word(status), strings.Repeat(" ", max(colStatus-len(status), 0)),
		padCut(paths, pathsW), colCounts, counts)
	if selected {
		return m.st.selected.Render(line)
	}
	return line
}

// rowPaths is "path state", then "+N more" for the others.
func (m *Model) rowPaths(c *record.Call, d *detail) string {
	if len(c.Patches) == 0 {
		return "-"
	}
	first := clean(c.Patches[0].Path)
	if d != nil && d.insp != nil && len(d.insp.Patches) > 0 {
		p := d.insp.Patches[0]
		first = clean(p.Path) + " " + m.st.word(pathState(p, planItem(d, p.Path), m.laterCall(c, p.Path)))
	}
	if n := len(c.Patches) - 1; n > 0 {
		first += fmt.Sprintf(" +%d more", n)
	}
	return first
}

// laterCall is the nearest later call of the run, not undone, that
// changed path after call c did: then c's patch is not in the file because
// the run went on, not because someone else edited it.
func (m *Model) laterCall(c *record.Call, path string) record.CallID {
	i := slices.Index(m.calls, c)
	for j := i - 1; j >= 0; j-- { // newest first: later calls come before c
		l := m.calls[j]
		if isUndo(l) || l.Ledger.UndoneBy != "" {
			continue
		}
		for _, p := range l.Patches {
			if p.Path == path {
				return l.Ledger.CallID
			}
		}
	}
	return ""
}

func planItem(d *detail, path string) *gitguard.UndoItem {
	if d == nil || !d.hasPlan {
		return nil
	}
	for i := range d.plan {
		if d.plan[i].Path == path {
			return &d.plan[i]
		}
	}
	return nil
}

// padPath pads a path to w cells; a longer one is kept whole (it wraps).
func padPath(p string, w int) string {
	return p + strings.Repeat(" ", max(w-ansi.StringWidth(p), 0))
}

// cut shortens s to w cells.
func cut(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// padCut cuts or pads s to exactly w cells.
func padCut(s string, w int) string {
	s = cut(s, w)
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

func (m *Model) detailTitle() string {
	var s string
	switch {
	case m.mode == modeConfirm:
		s = "── confirm "
	case m.selected() != nil:
		c := m.selected()
		s = fmt.Sprintf("── %s · %s · %s ", clean(c.Ledger.CallID), clean(c.Ledger.ToolName), callStatus(c))
		if m.focus {
			s += "· arrows scroll (tab: back to calls) "
		}
	default:
		s = "── "
	}
	return m.st.dim.Render(s + strings.Repeat("─", max(m.width-ansi.StringWidth(s), 0)))
}

func (m *Model) statusLine() string {
	switch {
	case m.mode == modeFilter:
		return m.input.View()
	case m.status != "" && m.isErr:
		return m.st.err.Render(clean(m.status))
	case m.status != "":
		return m.st.ok.Render(clean(m.status))
	case m.loading:
		return "reading the run…"
	}
	return ""
}

// syncDetail puts the selected call's detail (or the confirmation, or the
// last result) into the viewport when it changed.
func (m *Model) syncDetail() {
	var lines []string
	switch {
	case m.mode == modeConfirm && m.confirm != nil:
		lines = m.confirmLines()
	case m.result != nil:
		lines = m.result
	default:
		lines = m.detailLines()
	}
	// Long lines wrap rather than lose their end (a reason, a path).
	var wrapped []string
	for _, l := range lines {
		if ansi.StringWidth(l) <= m.width {
			wrapped = append(wrapped, l)
			continue
		}
		wrapped = append(wrapped, strings.Split(ansi.Wrap(l, max(m.width, 1), ""), "\n")...)
	}
	offset := m.vp.YOffset()
	m.vp.SetContentLines(wrapped)
	m.vp.SetYOffset(offset)
}

func (m *Model) detailLines() []string {
	c := m.selected()
	if c == nil {
		return nil
	}
	l := c.Ledger
	out := []string{m.st.meta.Render(fmt.Sprintf("started %s  finished %s  status %s", stamp(l.StartedAt), stamp(l.FinishedAt), callStatus(c)))}
	if l.UndoneBy != "" {
		out = append(out, fmt.Sprintf("undone by %s (r puts it back)", clean(l.UndoneBy)))
	}
	if len(l.Undoes) > 0 {
		out = append(out, fmt.Sprintf("undoes %s", clean(record.JoinCallIDs(l.Undoes, ", "))))
	}
	if l.Input != "" {
		out = append(out, "input: "+clean(l.Input))
	}
	if l.Result != "" {
		out = append(out, "result: "+clean(l.Result))
	}
	if len(c.Patches) == 0 {
		return append(out, "no file changes recorded for this call")
	}
	d := m.details[l.CallID]
	switch {
	case d != nil && d.err != nil:
		return append(out, m.st.err.Render("error: "+clean(d.err.Error())))
	case d == nil || d.insp == nil:
		return append(out, "reading the call…")
	}
	pathW := 4
	for _, p := range d.insp.Patches {
		pathW = max(pathW, min(ansi.StringWidth(clean(p.Path)), 30))
	}
	out = append(out, m.st.header.Render(fmt.Sprintf("%-13s %s UNDO WOULD", "STATE", padCut("PATH", pathW))))
	for _, p := range d.insp.Patches {
		it := planItem(d, p.Path)
		what := "(working it out…)"
		switch {
		case isUndo(c) && l.UndoneBy == "" && l.ToolName == gitguard.ToolUndo:
			what = "(an undo: r puts back what it took out)"
		case isUndo(c):
			what = "(recorded by gitguard)"
		case it != nil:
			what = actionText(*it)
		}
		later := m.laterCall(c, p.Path)
		word := pathState(p, it, later)
		if later != "" && it != nil {
			what += fmt.Sprintf(" (%s changed it later)", clean(later))
		} else if later != "" {
			what = fmt.Sprintf("(%s changed it later)", clean(later))
		}
		out = append(out, fmt.Sprintf("%s%s %s %s", m.st.word(word), strings.Repeat(" ", max(13-len(word), 0)), padPath(clean(p.Path), pathW), clean(what)))
	}
	for _, p := range d.insp.Patches {
		out = append(out, "")
		out = append(out, m.diffLines(l.CallID, p)...)
	}
	return out
}

// maxDiffLines bounds the lines of one patch drawn, so a huge file does
// not make every redraw slow.
const maxDiffLines = 3000

// diffLines colour a patch as git diff does.
func (m *Model) diffLines(callID record.CallID, p record.CallPatch) []string {
	text := strings.TrimSuffix(string(p.Text), "\n")
	lines := strings.Split(text, "\n")
	var more int
	if len(lines) > maxDiffLines {
		lines, more = lines[:maxDiffLines], len(lines)-maxDiffLines
	}
	var out []string
	for _, l := range lines {
		c := cut(clean(l), m.width) // a diff line is cut, not wrapped: its +/- column stays readable
		switch {
		case strings.HasPrefix(l, "diff --git"), strings.HasPrefix(l, "index "), strings.HasPrefix(l, "--- "),
			strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "new file"), strings.HasPrefix(l, "deleted file"),
			strings.HasPrefix(l, "old mode"), strings.HasPrefix(l, "new mode"):
			out = append(out, m.st.meta.Render(c))
		case strings.HasPrefix(l, "@@"):
			out = append(out, m.st.hunk.Render(c))
		case strings.HasPrefix(l, "+"):
			out = append(out, m.st.add.Render(c))
		case strings.HasPrefix(l, "-"):
			out = append(out, m.st.del.Render(c))
		default:
			out = append(out, c)
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("… %d more lines ('gitguard diff --call %s' prints them all)", more, clean(callID)))
	}
	return out
}

// stamp is a time as hh:mm:ss UTC, or "-".
func stamp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.TimeOnly)
}
