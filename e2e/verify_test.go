package e2e

import "testing"

// verifySession runs every check on a finished scripted session: each call's
// before and after against git, its diff, undo keeping the user's edit, redo,
// user state and fsck. recorded names the tool gitguard records for a step;
// "" means the step is not recorded (a read-only tool).
func verifySession(t *testing.T, ws *workspace, m *model, byID bool, recorded func(step) string) {
	t.Helper()
	truth := m.results(t)
	if t.Failed() {
		return
	}
	run := onlyRun(t, ws)
	var want []expectation
	byName := map[string]callTruth{}
	for i, s := range m.steps {
		byName[s.name] = truth[i]
		if s.fails && !truth[i].isError {
			t.Errorf("step %q is scripted to fail, but the agent sent its result back as a success: %s", s.name, truth[i].result)
		}
		if tool := recorded(s); tool != "" {
			want = append(want, expectation{step: s, truth: truth[i], tool: tool})
		}
	}
	ids := checkCalls(t, ws, run, want, byID)
	checkUndoRedo(t, ws, run, ids, byName)
	checkUserState(t, ws)
}
