package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// gitguardIn runs the CLI in process in dir and returns its exit code,
// stdout and stderr.
func gitguardIn(dir, stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"gitguard", "-C", dir}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestServeMatchesCLI: the result of each served op is, byte for byte, the
// --json document of the command of the same name, and a bad option gets
// the same message, hint and exit code from both.
func TestServeMatchesCLI(t *testing.T) {
	t.Parallel()
	r := gittest.New(t)
	r.Write("a.txt", "one\ntwo\nthree\n")
	r.Commit("init")
	state, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"start", "--run", "r1"},
		{"call", "start", "c1", "--run", "r1", "--tool", "write_file", "--", "a.txt", "b.txt"},
	} {
		if code, _, stderr := gitguardIn(r.Dir, "", args...); code != 0 {
			t.Fatalf("gitguard %v: exit %d\n%s", args, code, stderr)
		}
	}
	r.Write("a.txt", "one\nagent\nthree\n")
	r.Write("b.txt", "new\n")
	if code, _, stderr := gitguardIn(r.Dir, "", "call", "finish", "c1", "--run", "r1"); code != 0 {
		t.Fatalf("call finish: %s", stderr)
	}
	r.Write("a.txt", "one\nagent\nthree\nuser\n") // the user edits too: undo merges
	r.Write("notes.txt", "the user's\n")          // a change no call recorded
	// r1 is finished and another run is active: a request that names c1
	// and no run finds c1's run, as the command does.
	for _, args := range [][]string{{"finish", "--run", "r1"}, {"start", "--run", "r2"}} {
		if code, _, stderr := gitguardIn(r.Dir, "", args...); code != 0 {
			t.Fatalf("gitguard %v: %s", args, stderr)
		}
	}

	pairs := []struct {
		cli     []string
		request string
		noRun   bool // neither names the run
	}{
		{[]string{"status"}, `{"op": "status"}`, false},
		{[]string{"status", "--no-unrecorded"}, `{"op": "status", "unrecorded": false}`, false},
		{[]string{"status", "--call", "c1"}, `{"op": "status", "call": "c1"}`, false},
		{[]string{"diff"}, `{"op": "diff"}`, false},
		{[]string{"diff", "--call", "c1"}, `{"op": "diff", "call": "c1"}`, false},
		{[]string{"diff", "ckpt_001", "--paths", "b.*"}, `{"op": "diff", "since": "ckpt_001", "globs": ["b.*"]}`, false},
		{[]string{"ledger"}, `{"op": "ledger"}`, false},
		{[]string{"resume", "--dry-run"}, `{"op": "resume", "dry_run": true}`, false},
		{[]string{"undo", "--dry-run"}, `{"op": "undo", "dry_run": true}`, false},
		{[]string{"undo", "--dry-run", "--to", "ckpt_001", "--conflict", "markers"}, `{"op": "undo", "to": "ckpt_001", "dry_run": true, "markers": true}`, false},
		// Bad options: the CLI's error document against the protocol's answer.
		{[]string{"undo", "--call", "c1", "--all"}, `{"op": "undo", "call": "c1", "all": true}`, false},
		{[]string{"undo", "--call", "c1", "--to", "ckpt_001"}, `{"op": "undo", "call": "c1", "to": "ckpt_001"}`, false},
		{[]string{"undo", "--paths", "[x"}, `{"op": "undo", "globs": ["[x"]}`, false},
		{[]string{"undo", "--to", "ckpt_999"}, `{"op": "undo", "to": "ckpt_999"}`, false},
		{[]string{"diff", "--call", "c1", "ckpt_001"}, `{"op": "diff", "call": "c1", "since": "ckpt_001"}`, false},
		{[]string{"diff", "--call", "nope"}, `{"op": "diff", "call": "nope"}`, false},
		{[]string{"call", "plan", "c9", "--tool", "x", "--idempotency", "sometimes"}, `{"op": "call.plan", "call": "c9", "tool": "x", "idempotency": "sometimes"}`, false},
		{[]string{"call", "plan", "c9", "--tool", "x", "--replay", "maybe"}, `{"op": "call.plan", "call": "c9", "tool": "x", "replay": "maybe"}`, false},
		{[]string{"call", "plan", "bad id", "--tool", "x"}, `{"op": "call.plan", "call": "bad id", "tool": "x"}`, false},
		{[]string{"call", "start", "c9", "--tool", "x", "--paths", "[x"}, `{"op": "call.start", "call": "c9", "tool": "x", "globs": ["[x"]}`, false},
		{[]string{"call", "finish", "c1", "--status", "bogus"}, `{"op": "call.finish", "call": "c1", "status": "bogus"}`, false},
		{[]string{"call", "approve", "c1"}, `{"op": "call.approve", "call": "c1"}`, false},
		{[]string{"ledger", "--run", "nope"}, `{"op": "ledger", "run": "nope"}`, false},
		{[]string{"status", "--call", "c1"}, `{"op": "status", "call": "c1"}`, true},
		{[]string{"diff", "--call", "c1"}, `{"op": "diff", "call": "c1"}`, true},
		{[]string{"undo", "--dry-run", "--call", "c1"}, `{"op": "undo", "call": "c1", "dry_run": true}`, true},
		{[]string{"status", "--call", "c9"}, `{"op": "status", "call": "c9"}`, true},
		{[]string{"status"}, `{"op": "status"}`, true},
	}
	var in strings.Builder
	for _, p := range pairs {
		req := map[string]any{"run": "r1"}
		if p.noRun {
			req = map[string]any{}
		}
		if err := json.Unmarshal([]byte(p.request), &req); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(req)
		in.Write(append(b, '\n'))
	}
	code, served, stderr := gitguardIn(r.Dir, in.String(), "serve", "--stdio")
	if code != 0 || stderr != "" {
		t.Fatalf("serve: exit %d\n%s", code, stderr)
	}
	answers := strings.Split(strings.TrimSuffix(served, "\n"), "\n")
	if len(answers) != len(pairs) {
		t.Fatalf("%d answers to %d requests:\n%s", len(answers), len(pairs), served)
	}
	for i, p := range pairs {
		var resp struct {
			OK       bool            `json:"ok"`
			Result   json.RawMessage `json:"result"`
			Error    string          `json:"error"`
			Hint     string          `json:"hint"`
			ExitCode int             `json:"exit_code"`
		}
		if err := json.Unmarshal([]byte(answers[i]), &resp); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--json"}, p.cli...)
		if !slices.Contains(p.cli, "--run") && !p.noRun {
			args = append(args, "--run", "r1")
		}
		code, stdout, stderr := gitguardIn(r.Dir, "", args...)
		// status exits 1 while conflicted paths remain, for scripts; over
		// the protocol the classification is the answer (ok).
		statusFinding := p.cli[0] == "status" && code == 1 && resp.OK
		if resp.OK != (code == 0) && !statusFinding {
			t.Errorf("%v: CLI exit %d, protocol ok %v: %s", p.cli, code, resp.OK, answers[i])
			continue
		}
		// Whatever document the command printed, with or without a
		// finding, is the protocol's result byte for byte.
		var want bytes.Buffer
		if stdout != "" {
			if err := json.Compact(&want, []byte(stdout)); err != nil {
				t.Fatalf("%v: %v\n%s", p.cli, err, stdout)
			}
		}
		if !bytes.Equal(want.Bytes(), resp.Result) {
			t.Errorf("%v:\n CLI %s\nserve %s", p.cli, want.Bytes(), resp.Result)
		}
		if resp.OK {
			continue
		}
		got := fmt.Sprintf(`{"version":1,"error":%q,"hint":%q,"exit_code":%d}`, resp.Error, resp.Hint, resp.ExitCode)
		var cliErr, served bytes.Buffer
		json.Compact(&cliErr, []byte(stderr))
		json.Compact(&served, []byte(got))
		if cliErr.String() != served.String() || code != resp.ExitCode {
			t.Errorf("%v:\n CLI %s (exit %d)\nserve %s", p.cli, stderr, code, answers[i])
		}
	}
	if got, err := gittest.UserState(r.Dir, false); err != nil || got != state {
		t.Errorf("invariant 1 broken:\n%s", gittest.Diff(state, got))
	}
}
