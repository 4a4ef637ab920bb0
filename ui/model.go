package ui

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// DefaultPoll is how often the view checks the run and the work tree.
const DefaultPoll = 2 * time.Second

// Options configure the view.
type Options struct {
	// Run is the run to open; empty opens the active run, or the most
	// recently active one.
	Run record.RunID
	// Color turns colour on; states are words either way.
	Color bool
	// Markers starts with conflict markers on (m toggles them).
	Markers bool
	// Poll is the interval of the change check: zero means DefaultPoll,
	// a negative value turns polling off.
	Poll time.Duration
}

// mode is what the keys act on.
type mode int

const (
	modeList    mode = iota // the calls
	modeConfirm             // a write waits for y or n
	modeFilter              // typing a path filter
	modeHelp                // the help screen
	modeRuns                // the run picker
)

// detail is what is known of one call, loaded lazily.
type detail struct {
	insp        *gitguard.CallInspection
	plan        []gitguard.UndoItem
	hasPlan     bool
	planMarkers bool
	err         error
}

// Model is the rewind view. It is a bubbletea model; Run drives it.
type Model struct {
	ctx   context.Context
	b     *backend
	opts  Options
	st    styles
	keys  keyMap
	help  help.Model
	input textinput.Model
	vp    viewport.Model

	width, height int

	run     record.RunID
	picked  gitguard.RunPick // why run was opened
	runs    []gitguard.RunSummary
	tip     record.Hash
	calls   []*record.Call // newest first
	shown   []int          // indexes into calls that pass the filter
	sel     int            // index into shown
	top     int            // first row of shown on screen
	loading bool

	details map[record.CallID]*detail
	pending map[record.CallID]bool // inspections in flight (no plan)
	planned map[record.CallID]bool // plans in flight

	markers bool
	filter  string
	focus   bool // the detail pane has the arrows
	mode    mode
	runSel  int

	confirm  *confirmation
	writing  bool
	quitting bool
	status   string   // the last result or error, shown in place
	isErr    bool     // status is an error
	result   []string // the last write's per-path report
}

// New returns the view on g. The caller keeps g open until the program
// driving the model has returned and Close was called.
func New(ctx context.Context, g *gitguard.Guard, o Options) *Model {
	if o.Poll == 0 {
		o.Poll = DefaultPoll
	}
	m := &Model{ctx: ctx, b: &backend{g: g}, opts: o, st: newStyles(o.Color), keys: newKeyMap(),
		help: help.New(), input: textinput.New(), vp: viewport.New(), width: 80, height: 24,
		run: o.Run, loading: true, markers: o.Markers,
		details: map[record.CallID]*detail{}, pending: map[record.CallID]bool{}, planned: map[record.CallID]bool{}}
	m.help.Styles = m.st.help
	m.input.Prompt = "filter (glob or text, enter to apply, esc to clear): "
	m.input.CharLimit = 256
	m.layout()
	return m
}

// Close waits for the command in flight and refuses later ones: after it
// returns the Guard may be closed.
func (m *Model) Close() { m.b.close() }

// Init starts reading the run and the poll.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.b.loadLedger(m.ctx, m.run), tick(m.opts.Poll))
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, m.ensure()
	case ledgerMsg:
		return m, m.gotLedger(msg)
	case inspectedMsg:
		m.gotInspected(msg)
		return m, m.ensure()
	case polledMsg:
		return m, m.gotPoll(msg)
	case tickMsg:
		if m.writing || m.loading || m.run == "" {
			return m, tick(m.opts.Poll)
		}
		return m, m.b.poll(m.ctx, m.visibleCalls())
	case confirmMsg:
		if m.confirm == msg.asked { // not cancelled meanwhile
			m.confirm = msg.c
			m.syncDetail()
		}
		return m, nil
	case wroteMsg:
		return m, m.gotWrite(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) gotLedger(msg ledgerMsg) tea.Cmd {
	m.loading = false
	if msg.runs != nil {
		m.runs = msg.runs
	}
	if msg.err != nil {
		m.setErr(msg.err)
		return nil
	}
	keep := m.selectedID()
	if msg.run != m.run {
		keep = ""
		m.filter = ""
		m.picked = msg.pick // a reread of the same run keeps why it was opened
	}
	m.run, m.tip, m.calls = msg.run, msg.tip, msg.calls
	m.details = map[record.CallID]*detail{}
	m.pending, m.planned = map[record.CallID]bool{}, map[record.CallID]bool{}
	m.applyFilter(keep)
	return m.ensure()
}

func (m *Model) gotInspected(msg inspectedMsg) {
	for id, in := range msg.found {
		d := m.detailFor(id)
		if msg.plan {
			delete(m.planned, id)
			d.plan, d.hasPlan, d.planMarkers = in.Plan, true, msg.markers
		} else {
			delete(m.pending, id)
		}
		d.insp, d.err = in, nil
	}
	for id, err := range msg.errs {
		delete(m.pending, id)
		delete(m.planned, id)
		m.detailFor(id).err = err
	}
	m.syncDetail()
}

// gotPoll reloads the run when it moved and drops what changed on disk.
func (m *Model) gotPoll(msg polledMsg) tea.Cmd {
	next := tick(m.opts.Poll)
	if msg.err != nil {
		return next
	}
	m.runs = msg.runs
	for _, r := range msg.runs {
		if r.ID == m.run && r.Tip != m.tip && !m.loading && !m.writing {
			m.loading = true
			return tea.Batch(m.b.loadLedger(m.ctx, m.run), next)
		}
	}
	for id, in := range msg.found {
		d := m.details[id]
		switch {
		case d == nil:
		case d.err != nil: // a read that failed (a gc, a lock) works now
			d.insp, d.err, d.hasPlan = in, nil, false
		case d.insp != nil && !sameStates(d.insp, in):
			d.insp, d.hasPlan = in, false
		}
	}
	return tea.Batch(m.ensure(), next)
}

func sameStates(a, b *gitguard.CallInspection) bool {
	if len(a.Patches) != len(b.Patches) {
		return false
	}
	for i := range a.Patches {
		if a.Patches[i].Path != b.Patches[i].Path || a.Patches[i].Current != b.Patches[i].Current {
			return false
		}
	}
	return true
}

func (m *Model) gotWrite(msg wroteMsg) tea.Cmd {
	m.writing = false
	m.mode = modeList
	m.confirm = nil
	m.result = nil
	if msg.err != nil {
		m.setErr(msg.err)
		if m.quitting {
			return tea.Quit
		}
		return nil
	}
	m.status, m.isErr = describeResult(msg.c, msg.res), false
	m.result = resultLines(msg.res)
	if m.quitting {
		return tea.Quit
	}
	m.loading = true
	return m.b.loadLedger(m.ctx, m.run)
}

func (m *Model) setErr(err error) {
	m.status, m.isErr = errorText(err), true
}

// errorText is an error with a next step where one is known.
func errorText(err error) string {
	switch {
	case errors.Is(err, gitguard.ErrNoRun):
		return "no run recorded here yet; start one with 'gitguard start' (or an agent hook)"
	case errors.Is(err, gitguard.ErrNothingToUndo):
		return err.Error()
	case errors.Is(err, errRunMoved):
		return err.Error()
	}
	return "error: " + err.Error()
}

func (m *Model) detailFor(id record.CallID) *detail {
	d := m.details[id]
	if d == nil {
		d = &detail{}
		m.details[id] = d
	}
	return d
}

func (m *Model) selected() *record.Call {
	if m.sel < 0 || m.sel >= len(m.shown) {
		return nil
	}
	return m.calls[m.shown[m.sel]]
}

func (m *Model) selectedID() record.CallID {
	if c := m.selected(); c != nil {
		return c.Ledger.CallID
	}
	return ""
}

// applyFilter recomputes the rows and keeps call keep selected if shown.
func (m *Model) applyFilter(keep record.CallID) {
	m.shown = m.shown[:0]
	m.sel = 0
	for i, c := range m.calls {
		if !matchesFilter(m.filter, c) {
			continue
		}
		if c.Ledger.CallID == keep {
			m.sel = len(m.shown)
		}
		m.shown = append(m.shown, i)
	}
	m.scrollTo()
}

// listRows is the height of the call list.
func (m *Model) listRows() int {
	n := (m.height - 5) * 2 / 5
	if n < 1 {
		n = 1
	}
	return n
}

// detailRows is the height of the detail pane.
func (m *Model) detailRows() int {
	n := m.height - 5 - m.listRows()
	if n < 1 {
		n = 1
	}
	return n
}

func (m *Model) layout() {
	m.vp.SetWidth(max(m.width, 1))
	m.vp.SetHeight(m.detailRows())
	m.help.SetWidth(m.width)
	m.input.SetWidth(max(m.width-len(m.input.Prompt)-1, 10))
	m.scrollTo()
	m.syncDetail()
}

// scrollTo keeps the selection on screen.
func (m *Model) scrollTo() {
	rows := m.listRows()
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+rows {
		m.top = m.sel - rows + 1
	}
	if m.top > len(m.shown)-rows {
		m.top = max(len(m.shown)-rows, 0)
	}
	if m.top < 0 {
		m.top = 0
	}
}

// visibleCalls are the calls on screen.
func (m *Model) visibleCalls() []*record.Call {
	var out []*record.Call
	for i := m.top; i < len(m.shown) && i < m.top+m.listRows(); i++ {
		out = append(out, m.calls[m.shown[i]])
	}
	return out
}

// ensure starts loading what the screen shows and is not known yet: the
// states of the calls on screen, and the selected call's undo plan.
func (m *Model) ensure() tea.Cmd {
	if m.loading || m.writing {
		return nil
	}
	var need []*record.Call
	for _, c := range m.visibleCalls() {
		id := c.Ledger.CallID
		if d := m.details[id]; (d == nil || (d.insp == nil && d.err == nil)) && !m.pending[id] {
			m.pending[id] = true
			need = append(need, c)
		}
	}
	var cmds []tea.Cmd
	if len(need) > 0 {
		cmds = append(cmds, m.b.inspect(m.ctx, need, false, false))
	}
	if c := m.selected(); c != nil && len(c.Patches) > 0 && !isUndo(c) {
		id := c.Ledger.CallID
		d := m.details[id]
		stale := d == nil || !d.hasPlan || d.planMarkers != m.markers
		if stale && (d == nil || d.err == nil) && !m.planned[id] {
			m.planned[id] = true
			cmds = append(cmds, m.b.inspect(m.ctx, []*record.Call{c}, true, m.markers))
		}
	}
	m.syncDetail()
	return tea.Batch(cmds...)
}
