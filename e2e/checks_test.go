package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// ledgerCall is the part of 'gitguard ledger --json' the checks read.
type ledgerCall struct {
	CallID  string `json:"call_id"`
	Tool    string `json:"tool"`
	Status  string `json:"status"`
	Changes []struct {
		Path       string `json:"path"`
		BeforeHash string `json:"before_hash"`
		AfterHash  string `json:"after_hash"`
		BeforeMode string `json:"before_mode"`
		AfterMode  string `json:"after_mode"`
	} `json:"changes"`
}

// stateOf spells a recorded state the way fileState does.
func stateOf(mode, hash string) string {
	if strings.Trim(hash, "0") == "" || strings.Trim(mode, "0") == "" {
		return "absent"
	}
	return mode + " " + hash
}

// onlyRun returns the id of the one run recorded in the work tree.
func onlyRun(t *testing.T, ws *workspace) string {
	t.Helper()
	var runs struct {
		Runs []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"runs"`
	}
	out := ws.gitguard(t, "runs", "--json")
	if err := json.Unmarshal([]byte(out), &runs); err != nil {
		t.Fatalf("gitguard runs --json: %v\n%s", err, out)
	}
	if len(runs.Runs) != 1 {
		t.Fatalf("want exactly one run, got:\n%s", out)
	}
	return runs.Runs[0].ID
}

// checkSessionEnded checks that the agent's end of session finished the run
// and stopped the watch daemon a hook started (it may take a moment to go);
// after a turn's end (turnEnds), that the daemon goes on, and then stops it.
func checkSessionEnded(t *testing.T, ws *workspace, turnEnds bool) {
	t.Helper()
	if out := ws.gitguard(t, "runs", "--json"); !strings.Contains(out, `"state": "finished"`) {
		t.Errorf("the session ended but its run is not finished:\n%s", out)
	}
	if turnEnds {
		out, _ := runCmd(ws.dir, ws.env, nil, gitguardBin, "watch", "status", "--json")
		if !strings.Contains(out, `"running": true`) {
			t.Errorf("the turn ended and the watch daemon stopped; it was to go on for the next turn:\n%s", out)
		}
		ws.gitguard(t, "watch", "stop")
	}
	var out string
	for i := 0; i < 50; i++ {
		out, _ = runCmd(ws.dir, ws.env, nil, gitguardBin, "watch", "status", "--json")
		if strings.Contains(out, `"running": false`) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("the session ended but the watch daemon still runs:\n%s", out)
}

func ledger(t *testing.T, ws *workspace, run string) []ledgerCall {
	t.Helper()
	var l struct {
		Calls []ledgerCall `json:"calls"`
	}
	out := ws.gitguard(t, "ledger", "--json", "--run", run)
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("gitguard ledger --json: %v\n%s", err, out)
	}
	return l.Calls
}

// expectation says what gitguard should have recorded for one step.
type expectation struct {
	step  step
	truth callTruth
	tool  string // the tool name gitguard records
	// status is the call status gitguard records, or several separated by
	// "|"; empty means succeeded, or failed for a step scripted to fail.
	status string
}

// checkCalls matches every recorded call to its step (by id, or in order when
// the agent gives its tools no ids) and checks its status and, path by path,
// its before and after against what git hashed around the tool call. It
// returns the recorded call id of each step by step name.
func checkCalls(t *testing.T, ws *workspace, run string, want []expectation, byID bool) map[string]string {
	t.Helper()
	calls := ledger(t, ws, run)
	ids := map[string]string{}
	if len(calls) != len(want) {
		t.Errorf("recorded %d calls, want %d (one per file-changing tool use):\n%s", len(calls), len(want), ws.gitguard(t, "ledger", "--run", run))
	}
	byCallID := map[string]ledgerCall{}
	for _, c := range calls {
		byCallID[c.CallID] = c
	}
	for i, w := range want {
		var c ledgerCall
		var ok bool
		if byID {
			c, ok = byCallID[w.truth.id]
		} else if i < len(calls) {
			c, ok = calls[i], true
		}
		if !ok {
			t.Errorf("step %q: no recorded call (want id %s)", w.step.name, w.truth.id)
			continue
		}
		ids[w.step.name] = c.CallID
		if c.Tool != w.tool {
			t.Errorf("step %q: call %s records tool %q, want %q", w.step.name, c.CallID, c.Tool, w.tool)
		}
		wantStatus := w.status
		if wantStatus == "" {
			wantStatus = "succeeded"
			if w.step.fails {
				wantStatus = "failed"
			}
		}
		if !slices.Contains(strings.Split(wantStatus, "|"), c.Status) {
			t.Errorf("step %q: call %s status %q, want %q", w.step.name, c.CallID, c.Status, wantStatus)
		}
		got := map[string][2]string{}
		for _, ch := range c.Changes {
			got[ch.Path] = [2]string{stateOf(ch.BeforeMode, ch.BeforeHash), stateOf(ch.AfterMode, ch.AfterHash)}
		}
		wantChanged := map[string][2]string{}
		for _, p := range w.step.paths {
			if b, a := w.truth.before[p], w.truth.after[p]; b != a {
				wantChanged[p] = [2]string{b, a}
			}
		}
		if !equalStates(got, wantChanged) {
			t.Errorf("step %q: call %s recorded changes (before, after)\n%v\nbut git hashed\n%v", w.step.name, c.CallID, got, wantChanged)
		}
		if len(wantChanged) > 0 {
			checkDiffApplies(t, ws, run, c.CallID, wantChanged)
		}
	}
	return ids
}

func equalStates(a, b map[string][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// checkDiffApplies builds the call's before state in a scratch repository from
// the recorded blobs, checks that 'gitguard diff --call' applies there
// ('git apply --check'), applies it, and compares every path with the after
// state git hashed.
func checkDiffApplies(t *testing.T, ws *workspace, run, call string, states map[string][2]string) {
	t.Helper()
	patch := ws.gitguard(t, "diff", "--run", run, "--call", call)
	scratch := t.TempDir()
	if _, err := runCmd(scratch, ws.env, nil, "git", "init", "-q"); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p, s := range states {
		paths = append(paths, p)
		if s[0] == "absent" {
			continue
		}
		blob := strings.Fields(s[0])[1]
		content, err := runCmd(ws.dir, ws.env, nil, "git", "cat-file", "blob", blob)
		if err != nil {
			t.Fatal(err)
		}
		full := filepath.Join(scratch, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(paths)
	if _, err := runCmd(scratch, ws.env, []byte(patch), "git", "apply", "--check", "-"); err != nil {
		t.Errorf("gitguard diff --call %s does not apply to its before state: %v\n%s", call, err, patch)
		return
	}
	if _, err := runCmd(scratch, ws.env, []byte(patch), "git", "apply", "-"); err != nil {
		t.Errorf("git apply of gitguard diff --call %s: %v", call, err)
		return
	}
	for _, p := range paths {
		if got := fileState(t, scratch, p); got != states[p][1] {
			t.Errorf("gitguard diff --call %s applied to the before state gives %s = %s, want %s", call, p, got, states[p][1])
		}
	}
}

// checkUndoRedo undoes the README edit after the user appended a line (the
// user's line stays, the agent's hunk goes), redoes it, then undoes and
// redoes the shell call that made a subfolder and removed a file.
func checkUndoRedo(t *testing.T, ws *workspace, run string, ids map[string]string, truth map[string]callTruth) {
	t.Helper()
	edit, sub := ids[stepEdit], ids[stepSubfolder]
	if edit == "" || sub == "" {
		t.Errorf("cannot check undo: no call for %q or %q", stepEdit, stepSubfolder)
		return
	}
	readmeNow := ws.read(t, "README.md")
	if want := readmeAfterEdit() + userLine; readmeNow != want {
		t.Fatalf("README.md before undo:\n%s\nwant the agent's edit and the user's line:\n%s", readmeNow, want)
	}
	ws.gitguard(t, "undo", "--run", run, "--call", edit)
	if got, want := ws.read(t, "README.md"), initialFiles["README.md"]+userLine; got != want {
		t.Errorf("after undo --call %s README.md is\n%s\nwant the original with the user's line kept:\n%s", edit, got, want)
	}
	ws.gitguard(t, "redo", "--run", run)
	if got := ws.read(t, "README.md"); got != readmeNow {
		t.Errorf("after redo README.md is\n%s\nwant it back as before the undo:\n%s", got, readmeNow)
	}

	ws.gitguard(t, "undo", "--run", run, "--call", sub)
	tr := truth[stepSubfolder]
	subPaths := []string{"src/util/util.go", "src/util/with space.txt", "obsolete.txt"}
	for _, p := range subPaths {
		if got := fileState(t, ws.dir, p); got != tr.before[p] {
			t.Errorf("after undo --call %s %s is %s, want its before state %s", sub, p, got, tr.before[p])
		}
	}
	if _, err := os.Stat(filepath.Join(ws.dir, "src")); err == nil {
		t.Logf("note: undo left the empty folder src/ (git does not track folders)")
	}
	ws.gitguard(t, "redo", "--run", run)
	for _, p := range subPaths {
		if got := fileState(t, ws.dir, p); got != tr.after[p] {
			t.Errorf("after redo %s is %s, want its after state %s", p, got, tr.after[p])
		}
	}
}

// checkUserState checks invariant 1 and git fsck --strict.
func checkUserState(t *testing.T, ws *workspace) {
	t.Helper()
	if got := ws.state(t); got != ws.userState {
		t.Errorf("user state changed (refs, HEAD, index, stash, reflogs or config):\n--- before\n%s\n--- after\n%s", ws.userState, got)
	}
	if out, err := runCmd(ws.dir, ws.env, nil, "git", "fsck", "--strict", "--no-progress"); err != nil {
		t.Errorf("git fsck --strict: %v\n%s", err, out)
	}
	if got := ws.read(t, "staged.txt"); got != "staged by the user\n" {
		t.Errorf("staged.txt changed: %q", got)
	}
}
