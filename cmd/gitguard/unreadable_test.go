package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestCallSkipsUnreadable: a whole-workspace call whose shell makes a
// folder and a file unreadable (chmod 000) is recorded all the same: the
// unreadable paths are skipped loudly, listed on the call's ledger entry
// and by status (text and --json), as git status warns and goes on; a
// snapshot does the same. Undo reverts what was recorded and leaves what
// was never seen.
func TestCallSkipsUnreadable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file permissions do not make files unreadable on Windows")
	}
	if !gittest.AsUnprivileged(t) {
		return
	}
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Write("d/t.txt", "t\n")
	r.Commit("init")
	t.Cleanup(func() {
		for _, p := range []string{"d", "secret", "f.txt"} {
			os.Chmod(filepath.Join(r.Dir, p), 0o755)
		}
	})
	mustRun(t, r.Dir, "start", "--run", "R")
	mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
	r.Write("a.txt", "a agent\n")
	r.Write("b.txt", "b\n")
	r.Write("f.txt", "f\n")
	r.Write("secret/s.txt", "s\n")
	for _, p := range []string{"d", "secret", "f.txt"} {
		r.Chmod(p, 0)
	}
	out := mustRun(t, r.Dir, "call", "finish", "c1")
	for _, want := range []string{"  M a.txt", "  A b.txt",
		"warning: secret not recorded: cannot read folder: permission denied",
		"warning: f.txt not recorded: cannot read file: permission denied",
		"warning: d not recorded: cannot read folder: permission denied"} {
		if !strings.Contains(out, want) {
			t.Errorf("call finish does not say %q:\n%s", want, out)
		}
	}

	user, err := gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	out = mustRun(t, r.Dir, "status")
	for _, want := range []string{"applied  a.txt  c1", "applied  b.txt  c1",
		"skipped secret (c1): cannot read folder: permission denied",
		"skipped f.txt (c1): cannot read file: permission denied",
		"skipped d (c1): cannot read folder: permission denied"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	var st struct {
		Paths []struct {
			Path, State, Call string
		}
		Skipped []struct {
			Path, Call, Reason string
		}
	}
	if err := json.Unmarshal([]byte(stdoutOf(t, r.Dir, "status", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	var skipped, paths []string
	for _, s := range st.Skipped {
		if s.Call != "c1" || !strings.Contains(s.Reason, "permission denied") {
			t.Errorf("status --json: skipped %+v", s)
		}
		skipped = append(skipped, s.Path)
	}
	for _, p := range st.Paths {
		paths = append(paths, p.Path+" "+p.State+" "+p.Call)
	}
	if got, want := strings.Join(skipped, ","), "d,f.txt,secret"; got != want {
		t.Errorf("status --json skipped %s, want %s", got, want)
	}
	if got, want := strings.Join(paths, ","), "a.txt applied c1,b.txt applied c1"; got != want {
		t.Errorf("status --json paths %s, want %s", got, want)
	}
	out = mustRun(t, r.Dir, "snapshot")
	if !strings.Contains(out, "warning: secret not recorded: cannot read folder: permission denied") {
		t.Errorf("snapshot does not list the unreadable folder:\n%s", out)
	}
	if now, err := gittest.UserState(r.Dir, false); err != nil || now != user {
		t.Fatalf("status or snapshot changed user state (%v):\n%s", err, gittest.Diff(user, now))
	}

	// A later call that starts while they are unreadable and makes them
	// readable: its edits below them are not taken for creations (the
	// before state is unknown), and are listed as not recorded.
	mustRun(t, r.Dir, "call", "start", "c2", "--tool", "bash")
	for _, p := range []string{"d", "secret", "f.txt"} {
		r.Chmod(p, 0o755)
	}
	r.Write("secret/s.txt", "s agent\n")
	r.Write("d/t.txt", "t agent\n")
	out = mustRun(t, r.Dir, "call", "finish", "c2")
	if strings.Contains(out, "  M ") || strings.Contains(out, "  A ") {
		t.Errorf("c2 recorded a change of a path its start could not read:\n%s", out)
	}
	out = mustRun(t, r.Dir, "status")
	for _, want := range []string{"skipped secret/s.txt (c2): unreadable when the call started", "skipped d/t.txt (c2): unreadable when the call started"} {
		if !strings.Contains(out, want) {
			t.Errorf("status does not say %q:\n%s", want, out)
		}
	}
	user, err = gittest.UserState(r.Dir, false)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, r.Dir, "undo", "--all")
	if now, err := gittest.UserState(r.Dir, false); err != nil || now != user {
		t.Fatalf("undo changed user state (%v):\n%s", err, gittest.Diff(user, now))
	}
	for p, want := range map[string]string{"a.txt": "a\n", "secret/s.txt": "s agent\n", "d/t.txt": "t agent\n", "f.txt": "f\n"} {
		if got := r.Read(p); got != want {
			t.Errorf("%s after undo: %q, want %q", p, got, want)
		}
	}
	if _, err := os.Lstat(filepath.Join(r.Dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt not deleted by undo: %v", err)
	}
}

// stdoutOf runs gitguard in dir and returns its standard output alone.
func stdoutOf(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("gitguard", args...)
	cmd.Dir = dir
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("gitguard %s: %v\n%s", strings.Join(args, " "), err, errs.String())
	}
	return out.String()
}
