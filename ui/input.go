package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// move changes the selection by delta rows.
func (m *Model) move(delta int) tea.Cmd {
	if len(m.shown) == 0 {
		return nil
	}
	m.sel = min(max(m.sel+delta, 0), len(m.shown)-1)
	m.scrollTo()
	m.result = nil
	m.vp.GotoTop()
	return m.ensure()
}

// key handles a key press in the current mode.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	switch m.mode {
	case modeHelp:
		m.mode = modeList
		return nil
	case modeConfirm:
		return m.confirmKey(msg)
	case modeFilter:
		return m.filterKey(msg)
	case modeRuns:
		return m.runsKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.mode = modeHelp
	case key.Matches(msg, k.Focus):
		m.focus = !m.focus
	case key.Matches(msg, k.Up):
		if m.focus {
			m.vp.ScrollUp(1)
			return nil
		}
		return m.move(-1)
	case key.Matches(msg, k.Down):
		if m.focus {
			m.vp.ScrollDown(1)
			return nil
		}
		return m.move(1)
	case key.Matches(msg, k.PageUp):
		if m.focus {
			m.vp.PageUp()
			return nil
		}
		return m.move(-m.listRows())
	case key.Matches(msg, k.PageDown):
		if m.focus {
			m.vp.PageDown()
			return nil
		}
		return m.move(m.listRows())
	case key.Matches(msg, k.Top):
		return m.move(-len(m.shown))
	case key.Matches(msg, k.Bottom):
		return m.move(len(m.shown))
	case key.Matches(msg, k.ScrollDown):
		m.vp.HalfPageDown()
	case key.Matches(msg, k.ScrollUp):
		m.vp.HalfPageUp()
	case key.Matches(msg, k.Markers):
		m.markers = !m.markers
		m.status, m.isErr = "conflict markers "+onOff(m.markers)+": overlapping edits are "+markerEffect(m.markers), false
		return m.ensure()
	case key.Matches(msg, k.Filter):
		m.mode = modeFilter
		m.input.SetValue(m.filter)
		m.input.CursorEnd()
		m.input.Focus() // its blink command is dropped: the cursor stays steady
	case key.Matches(msg, k.Runs):
		m.mode = modeRuns
		m.runSel = 0
		for i, r := range m.runs {
			if r.ID == m.run {
				m.runSel = i
			}
		}
	case key.Matches(msg, k.Undo):
		return m.ask(undoCall)
	case key.Matches(msg, k.UndoTo):
		return m.ask(undoTo)
	case key.Matches(msg, k.Redo):
		return m.ask(redo)
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func markerEffect(on bool) string {
	if on {
		return "written with conflict markers"
	}
	return "left as they are"
}

// quit leaves, after the write in flight if there is one.
func (m *Model) quit() tea.Cmd {
	if m.writing {
		m.quitting = true
		m.status, m.isErr = "finishing the write before quitting…", false
		return nil
	}
	return tea.Quit
}

// ask starts a confirmation: it checks the key makes sense for the
// selected call, then asks for the dry run to show.
func (m *Model) ask(kind writeKind) tea.Cmd {
	c := m.selected()
	if m.loading || m.writing {
		return nil
	}
	if c == nil && kind != redo {
		m.status, m.isErr = "no call selected", true
		return nil
	}
	conf := &confirmation{kind: kind, run: m.run, call: c, opts: gitguard.UndoOptions{Markers: m.markers}}
	if why := refuse(kind, c); why != "" {
		m.status, m.isErr = why, true
		return nil
	}
	switch kind {
	case undoCall:
		conf.opts.Call = c.Ledger.CallID
	case redo:
		if c != nil && c.Ledger.ToolName == gitguard.ToolUndo && c.Ledger.UndoneBy == "" {
			conf.opts.Call = c.Ledger.CallID
		} else if c != nil && c.Ledger.UndoneBy != "" && !strings.HasPrefix(string(c.Ledger.UndoneBy), "redo-") {
			conf.opts.Call = c.Ledger.UndoneBy
		}
	}
	m.confirm = conf
	m.mode = modeConfirm
	m.status, m.result = "", nil
	m.syncDetail()
	return m.b.dryRun(m.ctx, conf)
}

// isUndo says whether c is an undo or a redo recorded by gitguard.
func isUndo(c *record.Call) bool {
	return c.Ledger.ToolName == gitguard.ToolUndo || c.Ledger.ToolName == gitguard.ToolRedo
}

// refuse says why a key does not apply to call c ("" when it does).
func refuse(kind writeKind, c *record.Call) string {
	if c == nil {
		return ""
	}
	l := c.Ledger
	if kind == redo {
		switch {
		case l.ToolName == gitguard.ToolRedo:
			return fmt.Sprintf("%s is a redo; to take those edits out again, select the call and press u", l.CallID)
		case l.ToolName == gitguard.ToolUndo && l.UndoneBy != "":
			return fmt.Sprintf("%s was already put back (by %s)", l.CallID, l.UndoneBy)
		}
		return ""
	}
	switch {
	case isUndo(c):
		return fmt.Sprintf("%s is an undo itself; r redoes it (puts back what it took out)", l.CallID)
	case len(c.Patches) == 0:
		return fmt.Sprintf("%s changed no file: nothing to undo", l.CallID)
	case kind == undoCall && l.UndoneBy != "":
		return fmt.Sprintf("%s is already undone (by %s); r puts it back", l.CallID, l.UndoneBy)
	case kind == undoTo && l.FinishSeq < 2:
		return fmt.Sprintf("%s has not finished; u undoes it alone", l.CallID)
	}
	return ""
}

func (m *Model) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	c := m.confirm
	switch {
	case key.Matches(msg, m.keys.Yes):
		if c == nil || !c.ready || c.err != nil || m.writing {
			return nil
		}
		if c.kind == redo && len(c.plan.Undone) > 0 {
			c.opts.Call = c.plan.Undone[0] // the undo shown, not a newer one
		}
		m.writing = true
		m.status, m.isErr = "writing…", false
		return m.b.write(m.ctx, c)
	case key.Matches(msg, m.keys.No):
		if m.writing {
			return nil
		}
		m.mode, m.confirm = modeList, nil
		m.status, m.isErr = "cancelled: nothing was written", false
		m.syncDetail()
	}
	return nil
}

func (m *Model) filterKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		m.filter = strings.TrimSpace(m.input.Value())
	case "esc":
		m.filter = ""
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		_ = cmd // cursor blink: not wanted
		return nil
	}
	m.input.Blur()
	m.mode = modeList
	m.applyFilter(m.selectedID())
	m.result = nil
	if m.filter != "" {
		m.status, m.isErr = fmt.Sprintf("%d of %d calls touch a path matching %q", len(m.shown), len(m.calls), m.filter), false
	} else {
		m.status = ""
	}
	return m.ensure()
}

func (m *Model) runsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.runSel = max(m.runSel-1, 0)
	case key.Matches(msg, k.Down):
		m.runSel = min(m.runSel+1, len(m.runs)-1)
	case key.Matches(msg, k.Enter):
		m.mode = modeList
		if m.runSel < 0 || m.runSel >= len(m.runs) {
			return nil
		}
		m.run = m.runs[m.runSel].ID
		m.loading, m.status, m.result = true, "", nil
		m.calls, m.shown = nil, nil
		return m.b.loadLedger(m.ctx, m.run)
	case key.Matches(msg, k.Back), msg.String() == "q", key.Matches(msg, k.Runs):
		m.mode = modeList
	}
	return nil
}
