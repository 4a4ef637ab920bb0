package e2e

import "testing"

// expect is what one agent makes gitguard record.
type expect struct {
	// byID: the agent gives each tool use an id, which is the call's id.
	byID bool
	// recorded says what gitguard records for a step: the tool name (""
	// when the step is not recorded, a read-only tool) and the status (see
	// expectation).
	recorded func(step) (tool, status string)
	// shellExitHidden: the agent does not tell the model that a shell
	// command exited non-zero.
	shellExitHidden bool
	// editErrorHidden: the agent tells the model that an edit failed in
	// the result's text only, not as an error result.
	editErrorHidden bool
	// turnEnds: the session ends with a turn's end, not the session's
	// (Codex's Stop; Qwen Code's with -p): the run is finished and the
	// watch daemon goes on for the next turn.
	turnEnds bool
}

// verifySession runs every check on a finished scripted session: each call's
// before and after against git, its diff, undo keeping the user's edit, redo,
// user state and fsck.
func verifySession(t *testing.T, ws *workspace, m *model, e expect) {
	t.Helper()
	truth := m.results(t)
	if t.Failed() {
		return
	}
	run := onlyRun(t, ws)
	checkSessionEnded(t, ws, e.turnEnds)
	var want []expectation
	byName := map[string]callTruth{}
	for i, s := range m.steps {
		byName[s.name] = truth[i]
		if s.fails && !truth[i].isError && !(e.shellExitHidden && s.name == stepBadShell) && !(e.editErrorHidden && s.name == stepBadEdit) {
			t.Errorf("step %q is scripted to fail, but the agent sent its result back as a success: %s", s.name, truth[i].result)
		}
		if tool, status := e.recorded(s); tool != "" {
			want = append(want, expectation{step: s, truth: truth[i], tool: tool, status: status})
		}
	}
	ids := checkCalls(t, ws, run, want, e.byID)
	checkUndoRedo(t, ws, run, ids, byName)
	checkUserState(t, ws)
}

// withoutUserEdits moves the scenario's user edits out of the session: the
// returned function makes them afterwards. A session run under 'gitguard run'
// is one call, which would count an edit made during it as the agent's.
func withoutUserEdits(steps []step) ([]step, func(dir string) error) {
	var edits []func(string) error
	for i := range steps {
		if steps[i].userEdit != nil {
			edits = append(edits, steps[i].userEdit)
			steps[i].userEdit = nil
		}
	}
	return steps, func(dir string) error {
		for _, e := range edits {
			if err := e(dir); err != nil {
				return err
			}
		}
		return nil
	}
}

// verifyWrapped checks a session run under 'gitguard run --': one call named
// after the agent's executable, whose before and after are the net change of
// every step as git hashed it; then the user edits README.md, and undo of
// the call must keep that edit, redo must restore, and so on as for hooks.
func verifyWrapped(t *testing.T, ws *workspace, m *model, tool string, userEdit func(string) error) {
	t.Helper()
	truth := m.results(t)
	if t.Failed() {
		return
	}
	run := onlyRun(t, ws)
	net := callTruth{before: map[string]string{}, after: map[string]string{}}
	session := step{name: "the whole session"}
	for i, s := range m.steps {
		for _, p := range s.paths {
			if _, seen := net.before[p]; !seen {
				net.before[p] = truth[i].before[p]
				session.paths = append(session.paths, p)
			}
			net.after[p] = truth[i].after[p]
		}
	}
	ids := checkCalls(t, ws, run, []expectation{{step: session, truth: net, tool: tool}}, false)
	if err := userEdit(ws.dir); err != nil {
		t.Fatal(err)
	}
	call := ids[session.name]
	byName := map[string]callTruth{stepSubfolder: net}
	checkUndoRedo(t, ws, run, map[string]string{stepEdit: call, stepSubfolder: call}, byName)
	checkUserState(t, ws)
}
