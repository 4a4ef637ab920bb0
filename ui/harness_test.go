package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// harness drives a Model in process against a real repository: messages go
// through Update, and the commands Update returns are run at once, their
// messages fed back, until none is left (the poll is off, so no command
// waits on a timer).
type harness struct {
	t     *testing.T
	r     *gittest.Repo
	g     *gitguard.Guard
	m     *Model
	run   record.RunID
	ctx   context.Context
	state string // invariant 1 digest when the harness started
	quit  bool
}

// The three-call run most tests open: c1 appends to a.txt, c2 appends
// "agent line" to b.txt, c3 rewrites a.txt's first line; then the user
// adds a line at the top of b.txt.
const (
	bAgent    = "x\nagent line\n"
	bUser     = "user top\nx\nagent line\n"
	bUserOnly = "user top\nx\n"
)

func newHarness(t *testing.T, o Options) *harness {
	t.Helper()
	h := openRepo(t)
	h.call("c1", "a.txt", "one\ntwo\nthree\nfour\n")
	h.call("c2", "b.txt", bAgent)
	h.call("c3", "a.txt", "ONE\ntwo\nthree\nfour\n")
	h.r.Write("b.txt", bUser)
	h.open(o)
	return h
}

// openRepo makes the repository and the run, with no calls yet.
func openRepo(t *testing.T) *harness {
	t.Helper()
	r := gittest.New(t)
	r.Write("a.txt", "one\ntwo\nthree\n")
	r.Write("b.txt", "x\n")
	r.Commit("init")
	h := &harness{t: t, r: r, ctx: context.Background()}
	s, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	h.state = s
	g, err := gitguard.Open(h.ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	h.g = g
	run, err := g.StartRun(h.ctx, "r1", gitguard.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.run = run.ID
	return h
}

// call records agent call id writing content to path.
func (h *harness) call(id record.CallID, path, content string) {
	h.t.Helper()
	if _, err := h.g.CallStart(h.ctx, h.run, gitguard.CallOptions{CallID: id, Tool: "edit", Paths: []string{path}}); err != nil {
		h.t.Fatal(err)
	}
	h.r.Write(path, content)
	if _, err := h.g.CallFinish(h.ctx, h.run, id, gitguard.FinishOptions{}); err != nil {
		h.t.Fatal(err)
	}
}

// open starts the view at 80x24 with polling off.
func (h *harness) open(o Options) {
	h.t.Helper()
	if o.Poll == 0 {
		o.Poll = -1
	}
	h.m = New(h.ctx, h.g, o)
	h.exec(h.m.Init())
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
}

func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.exec(cmd)
}

func (h *harness) exec(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 1000 {
			h.t.Fatal("commands keep coming: a loop in Update")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			h.quit = true
		default:
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// keys presses keys by name: "down", "enter", "esc", "ctrl+c", or text.
func (h *harness) keys(names ...string) {
	h.t.Helper()
	for _, n := range names {
		h.send(keyPress(n))
	}
}

func keyPress(n string) tea.KeyPressMsg {
	special := map[string]rune{"up": tea.KeyUp, "down": tea.KeyDown, "enter": tea.KeyEnter, "esc": tea.KeyEscape,
		"home": tea.KeyHome, "end": tea.KeyEnd, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "tab": tea.KeyTab,
		"backspace": tea.KeyBackspace}
	if c, ok := special[n]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	if c, ok := strings.CutPrefix(n, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(n)
	return tea.KeyPressMsg{Code: r[0], Text: n}
}

// typeText types s into the focused input.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) screen() string { return h.m.View().Content }

// rows are the call rows on screen, without the marker column.
func (h *harness) selectedRow() string {
	for _, l := range strings.Split(h.screen(), "\n") {
		if strings.HasPrefix(l, "> ") {
			return l
		}
	}
	return ""
}

func (h *harness) wantScreen(subs ...string) {
	h.t.Helper()
	s := h.screen()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			h.t.Fatalf("screen lacks %q:\n%s", sub, s)
		}
	}
}

func (h *harness) checkInvariant1() {
	h.t.Helper()
	s, err := gittest.UserState(h.r.Dir, false)
	if err != nil {
		h.t.Fatal(err)
	}
	if s != h.state {
		h.t.Errorf("invariant 1 broken:\n%s", gittest.Diff(h.state, s))
	}
}

// ledger returns the run's calls by id, read afresh.
func (h *harness) ledger() map[string]string {
	h.t.Helper()
	_, calls, err := h.g.Ledger(h.ctx, h.run)
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range calls {
		out[string(c.Ledger.CallID)] = callStatus(c)
	}
	return out
}
