package ui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

func TestOpensNewestFirstAndNavigates(t *testing.T) {
	h := newHarness(t, Options{})
	order := regexp.MustCompile(`(?s)edit .*a\.txt.*\n.*b\.txt.*\n.*a\.txt`)
	if !order.MatchString(h.screen()) {
		t.Fatalf("calls not newest first:\n%s", h.screen())
	}
	if h.m.selectedID() != "c3" {
		t.Fatalf("opens on %q, want the newest call c3", h.m.selectedID())
	}
	h.wantScreen("── c3 · edit · succeeded", "-one", "+ONE", "applied")

	h.keys("down")
	if h.m.selectedID() != "c2" {
		t.Fatalf("down selects %q, want c2", h.m.selectedID())
	}
	// The middle call's path, its state against the user's edit, its diff
	// and what undo would do, all before anything is written.
	h.wantScreen("── c2 · edit · succeeded", "+agent line", "merge: the agent's hunks go, yours stay")
	if row := h.selectedRow(); !strings.Contains(row, "b.txt edited since") || !strings.Contains(row, "+1 -0") {
		t.Fatalf("selected row %q lacks the path state and counts", row)
	}
	h.keys("end")
	if h.m.selectedID() != "c1" {
		t.Fatalf("end selects %q, want c1", h.m.selectedID())
	}
	h.keys("down") // past the end: stays
	if h.m.selectedID() != "c1" {
		t.Fatalf("down past the end selects %q", h.m.selectedID())
	}
	h.keys("home", "up")
	if h.m.selectedID() != "c3" {
		t.Fatalf("home then up selects %q, want c3", h.m.selectedID())
	}
	h.keys("j")
	if h.m.selectedID() != "c2" {
		t.Fatalf("j selects %q, want c2", h.m.selectedID())
	}
	if got := h.r.Read("b.txt"); got != bUser {
		t.Fatalf("browsing changed b.txt: %q", got)
	}
	h.checkInvariant1()
}

func TestUndoMiddleCallKeepsUserEdit(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("down", "u")
	h.wantScreen("Undo call c2 (edit)?", "Calls: c2", "b.txt: merge", "y: yes, write it")
	if got := h.r.Read("b.txt"); got != bUser {
		t.Fatalf("asking wrote b.txt: %q", got)
	}
	h.keys("y")
	if got := h.r.Read("b.txt"); got != bUserOnly {
		t.Fatalf("after undo b.txt = %q, want the user's line kept and the agent's gone: %q", got, bUserOnly)
	}
	if got := h.r.Read("a.txt"); got != "ONE\ntwo\nthree\nfour\n" {
		t.Fatalf("undo of c2 touched a.txt: %q", got)
	}
	h.wantScreen("undid c2: 1 path(s) written; recorded as undo-", "r puts it back", "merge", "written")
	if st := h.ledger(); st["c2"] != "undone" || st["c1"] != "succeeded" || st["c3"] != "succeeded" {
		t.Fatalf("ledger after undo: %v", st)
	}
	// The view reread the run: the undo is a call, c2 says undone, and the
	// selection stayed on c2.
	if h.m.selectedID() != "c2" || !strings.Contains(h.selectedRow(), "undone") {
		t.Fatalf("selection %q, row %q", h.m.selectedID(), h.selectedRow())
	}
	h.wantScreen("gitguard-undo")
	// Undoing it again is refused with the way back.
	h.keys("u")
	h.wantScreen("c2 is already undone (by undo-")
	// The undo is the newest call; it is redone with r, not undone with u.
	h.keys("home")
	h.wantScreen("── undo-", "(an undo: r puts back what it took out)")
	h.keys("u")
	h.wantScreen("is an undo itself; r redoes it")
	if h.m.mode == modeConfirm {
		t.Fatal("u on an undo call asked to write")
	}
	h.checkInvariant1()
	h.r.Git("fsck", "--strict")
}

func TestConfirmationNoWritesNothing(t *testing.T) {
	h := newHarness(t, Options{})
	runs, err := h.g.Runs(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip := runs[0].Tip
	for _, no := range []string{"n", "esc", "q"} {
		h.keys("home", "down", "u")
		h.wantScreen("Undo call c2")
		h.keys(no)
		h.wantScreen("cancelled: nothing was written")
		if h.quit {
			t.Fatalf("%q in the confirmation quit the view", no)
		}
	}
	if got := h.r.Read("b.txt"); got != bUser {
		t.Fatalf("b.txt = %q after declining", got)
	}
	runs, err = h.g.Runs(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Tip != tip {
		t.Fatal("declining recorded something in the run")
	}
	// Keys other than y and n do nothing while asking.
	h.keys("u", "x", "down", "U")
	if h.m.mode != modeConfirm || h.r.Read("b.txt") != bUser {
		t.Fatal("a stray key in the confirmation changed something")
	}
	h.checkInvariant1()
}

func TestRedoPutsTheUndoBack(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("down", "u", "y")
	if got := h.r.Read("b.txt"); got != bUserOnly {
		t.Fatalf("undo: b.txt = %q", got)
	}
	// r on the undone call redoes the undo that undid it.
	h.keys("r")
	h.wantScreen("Redo: put back what the undo took out?", "which undid c2")
	h.keys("y")
	if got := h.r.Read("b.txt"); got != bUser {
		t.Fatalf("redo: b.txt = %q, want %q", got, bUser)
	}
	h.wantScreen("redid (undid the undo) undo-")
	if st := h.ledger(); st["c2"] != "succeeded" {
		t.Fatalf("after redo c2 is %q", st["c2"])
	}
	// The redo and the redone undo are not redone again.
	h.keys("home")
	h.wantScreen("── redo-")
	h.keys("r")
	h.wantScreen("is a redo; to take those edits out again, select the call and press u")
	h.keys("down", "r")
	h.wantScreen("was already put back (by redo-")
	if h.m.mode == modeConfirm {
		t.Fatal("r on a redone undo asked to write")
	}
	h.checkInvariant1()
}

func TestUndoBackToHere(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("down", "U")
	h.wantScreen("Undo c2 and every newer call still in effect?", "Calls: c2, c3")
	h.keys("y")
	if got := h.r.Read("a.txt"); got != "one\ntwo\nthree\nfour\n" {
		t.Fatalf("a.txt = %q, want c1's version", got)
	}
	if got := h.r.Read("b.txt"); got != bUserOnly {
		t.Fatalf("b.txt = %q", got)
	}
	if st := h.ledger(); st["c1"] != "succeeded" || st["c2"] != "undone" || st["c3"] != "undone" {
		t.Fatalf("ledger: %v", st)
	}
	h.checkInvariant1()
}

func TestConflictMarkersToggle(t *testing.T) {
	h := openRepo(t)
	h.call("c1", "a.txt", "one\nagent\nthree\n")
	h.r.Write("a.txt", "one\nuser\nthree\n") // the same line: overlapping
	h.open(Options{})
	h.keys("u")
	h.wantScreen("conflict, nothing written", "overlapping hunk", "It writes 0 path(s)")
	h.keys("esc", "m")
	h.wantScreen("markers on", "conflict markers on: overlapping edits are written with conflict markers")
	h.keys("u")
	h.wantScreen("It writes 1 path(s)", "markers on: written with conflict markers")
	h.keys("y")
	got := h.r.Read("a.txt")
	if !strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "user") || !strings.Contains(got, ">>>>>>>") {
		t.Fatalf("a.txt has no conflict markers around the user's line:\n%s", got)
	}
	h.checkInvariant1()
}

func TestConflictWithoutMarkersLeavesFile(t *testing.T) {
	h := openRepo(t)
	h.call("c1", "a.txt", "one\nagent\nthree\n")
	h.r.Write("a.txt", "one\nuser\nthree\n")
	h.open(Options{})
	h.keys("u", "y")
	if got := h.r.Read("a.txt"); got != "one\nuser\nthree\n" {
		t.Fatalf("a conflicted undo without markers wrote a.txt: %q", got)
	}
	h.wantScreen("1 left conflicted")
	if st := h.ledger(); st["c1"] != "succeeded" {
		t.Fatalf("a call left conflicted must stay in effect, got %q", st["c1"])
	}
	h.checkInvariant1()
}

func TestFilterByPath(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("/")
	h.typeText("b.t")
	h.keys("enter")
	if len(h.m.shown) != 1 || h.m.selectedID() != "c2" {
		t.Fatalf("filter b.t shows %d calls, selected %q", len(h.m.shown), h.m.selectedID())
	}
	h.wantScreen(`1 shown, filter "b.t"`, "1 of 3 calls touch a path matching")
	h.keys("/")
	h.send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}) // clear the input
	h.typeText("**/a.*")
	h.keys("enter")
	if len(h.m.shown) != 2 {
		t.Fatalf("glob **/a.* shows %d calls, want 2", len(h.m.shown))
	}
	h.keys("/", "esc")
	if len(h.m.shown) != 3 || h.m.filter != "" {
		t.Fatalf("esc keeps filter %q (%d shown)", h.m.filter, len(h.m.shown))
	}
	h.keys("/")
	h.typeText("nothing-matches")
	h.keys("enter")
	h.wantScreen(`no call touched a path matching "nothing-matches"`)
	// With nothing selected, undo keys do nothing.
	h.keys("u", "U")
	if h.m.mode == modeConfirm {
		t.Fatal("undo asked with no call selected")
	}
}

func TestRunPicker(t *testing.T) {
	h := newHarness(t, Options{})
	if _, err := h.g.FinishRun(h.ctx, h.run, gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.g.StartRun(h.ctx, "r2", gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	h.run = "r2"
	h.call("d1", "a.txt", "r2 was here\n")
	h.open(Options{})
	h.wantScreen("run r2 (active) · 1 calls")
	h.keys("R")
	h.wantScreen("Runs, most recently active first", "r1", "finished", "r2", "active")
	h.keys("down", "enter")
	h.wantScreen("run r1 (finished) · 3 calls")
	if h.m.selectedID() != "c3" {
		t.Fatalf("after switching run selected %q", h.m.selectedID())
	}
	h.keys("R", "esc")
	if h.m.mode != modeList || h.m.run != "r1" {
		t.Fatalf("esc in the picker: mode %v, run %s", h.m.mode, h.m.run)
	}
}

func TestHelpScreen(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("?")
	h.wantScreen("undo the selected call, keeping your edits", "unrecoverable", "Press any key to go back.")
	h.keys("x")
	h.wantScreen("── c3")
}

func TestQuitWaitsForTheWrite(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("q")
	if !h.quit {
		t.Fatal("q did not quit")
	}
	h = newHarness(t, Options{})
	h.keys("ctrl+c")
	if !h.quit {
		t.Fatal("ctrl+c did not quit")
	}
	// While a write runs, ctrl+c waits for it to finish, then quits.
	h = newHarness(t, Options{})
	h.keys("down", "u")
	_, write := h.m.Update(keyPress("y"))
	if !h.m.writing {
		t.Fatal("y did not start the write")
	}
	_, cmd := h.m.Update(keyPress("ctrl+c"))
	if cmd != nil {
		t.Fatal("ctrl+c during a write returned a command; it must wait")
	}
	h.wantScreen("finishing the write before quitting")
	h.exec(write)
	if !h.quit {
		t.Fatal("the view did not quit once the write finished")
	}
	if got := h.r.Read("b.txt"); got != bUserOnly {
		t.Fatalf("the write interrupted by ctrl+c left b.txt = %q", got)
	}
	h.checkInvariant1()
}

func TestRefreshOnChange(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("down")
	if !strings.Contains(h.selectedRow(), "b.txt edited since") {
		t.Fatalf("row: %q", h.selectedRow())
	}
	// The user takes their line out again: the poll sees the work tree.
	h.r.Write("b.txt", bAgent)
	h.send(tickMsg{})
	if row := h.selectedRow(); !strings.Contains(row, "b.txt applied") {
		t.Fatalf("after the user's change the row says %q", row)
	}
	h.wantScreen("restore the content from before")
	// Another process records a call: the poll sees the run move.
	h.call("c4", "a.txt", "c4\n")
	h.send(tickMsg{})
	h.wantScreen("· 4 calls")
	if h.m.selectedID() != "c2" {
		t.Fatalf("a reload moved the selection to %q", h.m.selectedID())
	}
}

// TestRunMovedBetweenAskAndYes: a call recorded after the plan was shown
// must not be undone by the yes given to the plan.
func TestRunMovedBetweenAskAndYes(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("down", "U")
	h.wantScreen("Calls: c2, c3")
	h.call("c4", "b.txt", "c4 owns b\n")
	h.keys("y")
	h.wantScreen("the run changed since the plan was shown")
	if got := h.r.Read("b.txt"); got != "c4 owns b\n" {
		t.Fatalf("b.txt = %q: the write went ahead", got)
	}
	h.checkInvariant1()
}

// checkFits asserts the screen fits w x h.
func checkFits(t *testing.T, screen string, w, hgt int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) > hgt {
		t.Errorf("%d lines, more than %d:\n%s", len(lines), hgt, screen)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, n, w, l)
		}
	}
}

func TestFits80x24InEveryMode(t *testing.T) {
	h := openRepo(t)
	long := "src/" + strings.Repeat("very-long-folder-name/", 6) + "file.go"
	for i := 1; i <= 30; i++ {
		p := "a.txt"
		if i%3 == 0 {
			p = long
		}
		h.call(record.CallID(fmt.Sprintf("call-%02d-with-a-long-id", i)), p, fmt.Sprintf("%d %s\n", i, strings.Repeat("wide line ", 20)))
	}
	for _, size := range [][2]int{{80, 24}, {60, 15}, {120, 40}} {
		h.open(Options{Color: true})
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		steps := [][]string{nil, {"pgdown"}, {"u"}, {"esc", "?"}, {"x", "R"}, {"esc", "/"}, {"esc", "end", "tab", "pgdown"}}
		for _, s := range steps {
			h.keys(s...)
			checkFits(t, h.screen(), size[0], size[1])
		}
	}
}

func TestNoColorStatesAreWords(t *testing.T) {
	h := newHarness(t, Options{Color: false})
	h.keys("down")
	s := h.screen()
	if strings.Contains(s, "\x1b[") {
		t.Fatalf("NO_COLOR screen has escape sequences: %q", s)
	}
	for _, w := range []string{"succeeded", "edited since", "applied", "> "} {
		if !strings.Contains(s, w) {
			t.Fatalf("NO_COLOR screen lacks %q:\n%s", w, s)
		}
	}
	h.keys("u")
	if s := h.screen(); strings.Contains(s, "\x1b[") || !strings.Contains(s, "edited since") {
		t.Fatalf("NO_COLOR confirmation: %q", s)
	}
	// With colour the same screen is coloured: the check above can fail.
	hc := newHarness(t, Options{Color: true})
	hc.keys("down")
	if !strings.Contains(hc.screen(), "\x1b[") {
		t.Fatal("the colour screen has no colour; the NO_COLOR check proves nothing")
	}
}

func TestHostileNamesAndContentStayOnTheirLine(t *testing.T) {
	h := openRepo(t)
	evil := "evil\x1b]0;pwned\x07\u202ename.txt"
	h.call("c1", evil, "line with \x1b[2J escape\n")
	h.open(Options{Color: false})
	s := h.screen()
	if strings.ContainsAny(s, "\x1b\x07") {
		t.Fatalf("raw control characters reach the terminal: %q", s)
	}
	h.wantScreen(`evil\x1b]0;pwned\a\u202ename.txt`, `line with \x1b[2J escape`)
	checkFits(t, s, 80, 24)
}

func TestLazyReads(t *testing.T) {
	h := openRepo(t)
	for i := 1; i <= 40; i++ {
		h.call(record.CallID(fmt.Sprintf("c%02d", i)), fmt.Sprintf("f%02d.txt", i), "x\n")
	}
	h.open(Options{})
	rows := h.m.listRows()
	if n := len(h.m.details); n == 0 || n > rows {
		t.Fatalf("opening inspected %d calls; want only the %d on screen", n, rows)
	}
	if _, ok := h.m.details["c01"]; ok {
		t.Fatal("the oldest call was read before it was on screen")
	}
	planned := 0
	for _, d := range h.m.details {
		if d.hasPlan {
			planned++
		}
	}
	if planned != 1 {
		t.Fatalf("%d undo plans made at open; want only the selected call's", planned)
	}
	h.keys("end")
	if d := h.m.details["c01"]; d == nil || !d.hasPlan {
		t.Fatal("selecting the oldest call did not read it")
	}
}

func TestHugeDiffIsCapped(t *testing.T) {
	h := openRepo(t)
	var b strings.Builder
	for i := 0; i < maxDiffLines+500; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	h.call("big", "big.txt", b.String())
	h.open(Options{})
	content := h.m.vp.GetContent()
	if !strings.Contains(content, "more lines ('gitguard diff --call big' prints them all)") {
		t.Fatalf("no cap notice in a %d-line diff", maxDiffLines+500)
	}
	if n := strings.Count(content, "\n"); n > maxDiffLines+50 {
		t.Fatalf("%d lines drawn for one patch", n)
	}
	if !strings.Contains(h.selectedRow(), fmt.Sprintf("+%d -0", maxDiffLines+500)) {
		t.Fatalf("counts are of the whole patch, not the lines drawn: %q", h.selectedRow())
	}
	checkFits(t, h.screen(), 80, 24)
}

// TestSurvivesGitGC: the view keeps its Guard open for as long as it runs;
// a git gc meanwhile packs and prunes the loose objects it read from.
func TestSurvivesGitGC(t *testing.T) {
	h := newHarness(t, Options{})
	h.r.Git("gc", "-q", "--prune=now")
	// gc itself expires the old (fixed-date) reflog entries: compare from here.
	s, err := gittest.UserState(h.r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	h.state = s
	h.call("c4", "a.txt", "after gc\n") // moves the run: the next poll rereads it
	h.send(tickMsg{})
	h.wantScreen("· 4 calls")
	h.keys("end")
	h.wantScreen("── c1")
	if !strings.Contains(h.m.vp.GetContent(), "+four") {
		t.Fatalf("c1's diff after gc:\n%s", h.m.vp.GetContent())
	}
	h.keys("home", "down", "down", "u")
	h.wantScreen("Undo call c2")
	h.keys("y")
	if got := h.r.Read("b.txt"); got != bUserOnly {
		t.Fatalf("undo after gc: b.txt = %q", got)
	}
	h.checkInvariant1()
}

// After the agent's session ended (no run active), the view opens on the
// newest run of the work tree and says so in its header.
func TestOpensNewestRun(t *testing.T) {
	h := newHarness(t, Options{})
	if _, err := h.g.FinishRun(h.ctx, h.run, gitguard.CheckpointOptions{}); err != nil {
		t.Fatal(err)
	}
	h.open(Options{})
	h.wantScreen("run r1 (finished) · newest here, none active · 3 calls")
	h.checkInvariant1()
}

// A path a later call of the same run changed is not conflicted for the
// earlier call: the row says which call changed it later, and every row
// shows its call id, as undo --call takes it.
func TestLaterCallIsNoConflict(t *testing.T) {
	h := newHarness(t, Options{})
	h.keys("end")
	if h.m.selectedID() != "c1" {
		t.Fatalf("end selects %q, want c1", h.m.selectedID())
	}
	h.wantScreen("CALL", "── c1 · edit · succeeded", "(c3 changed it")
	row := h.selectedRow()
	if !strings.Contains(row, " c1 ") || !strings.Contains(row, "a.txt changed") || strings.Contains(row, "conflicted") {
		t.Fatalf("c1's row %q: want its id and a.txt changed later, not conflicted", row)
	}
	if s := h.screen(); strings.Contains(s, "conflicted") {
		t.Fatalf("a path is called conflicted though only the run's later call changed it:\n%s", s)
	}
	h.checkInvariant1()
}
