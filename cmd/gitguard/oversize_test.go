package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// bigSize is over the default size limit (64 MiB).
const bigSize = 120 << 20

// sparseFile makes a file of size bytes without writing them (a hole), so
// the test costs neither disk nor time to create it.
func sparseFile(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// statusStates returns path → state from status --json, which must name
// the size limit limit.
func statusStates(t *testing.T, dir string, limit int64) map[string]struct{ State, Reason string } {
	t.Helper()
	out, err := gitguardCmd(t, dir, nil, "status", "--json", "--no-unrecorded")
	if code := exitOf(err); code != exitOK && code != exitFound {
		t.Fatalf("status --json: exit %d\n%s", code, out)
	}
	var doc struct {
		Paths []struct {
			Path, State, Reason string
		} `json:"paths"`
		MaxFileSize int64 `json:"max_file_size"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if doc.MaxFileSize != limit {
		t.Errorf("status --json: max_file_size %d, want %d", doc.MaxFileSize, limit)
	}
	m := map[string]struct{ State, Reason string }{}
	for _, p := range doc.Paths {
		m[p.Path] = struct{ State, Reason string }{p.State, p.Reason}
	}
	return m
}

// TestUndoOversize: one shell call appends to a small file and to a 120 MB
// file (over the size limit, so recorded by hash only). Status calls the
// big file unrecoverable, with the reason, not applied; undo reverts the
// small file, leaves the big one as it is, and exits 1 with a plain
// message naming the limit — never an integrity error; undo --all says the
// same and writes nothing; redo puts the small file back. A big file the
// agent created is unrecoverable too (deleting it could not be redone), and
// so is a committed one it grew: the old content is in git, but the
// agent's could not be brought back by redo.
func TestUndoOversize(t *testing.T) {
	t.Parallel()
	gittest.RequireGit(t)
	// The 120 MB case runs with the default limit; the others, which only
	// vary what was there before, with a 1 MiB limit and a 2 MiB file.
	for _, tc := range []struct {
		name      string
		existed   bool // the big file was there before the call
		committed bool // and committed, so its old content is in git
		size      int64
		limit     int64
		limitText string
	}{
		{"grown", true, false, bigSize, 64 << 20, "64 MiB"},
		{"created", false, false, 2 << 20, 1 << 20, "1 MiB"},
		{"committed", true, true, 2 << 20, 1 << 20, "1 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := gittest.New(t)
			r.Write("small.txt", "small\n")
			if tc.limit != 64<<20 {
				r.Write(".gitguard.toml", "max_file_size = \"1MiB\"\n")
			}
			r.Commit("init")
			big := filepath.Join(r.Dir, "big.bin")
			if tc.existed {
				sparseFile(t, big, tc.size)
			}
			if tc.committed {
				r.Commit("big")
			}
			mustRun(t, r.Dir, "start", "--run", "big")
			mustRun(t, r.Dir, "call", "start", "c1", "--tool", "bash")
			if !tc.existed {
				sparseFile(t, big, tc.size)
			}
			appendFile(t, big, "tail\n")
			r.Write("small.txt", "small\nagent\n")
			mustRun(t, r.Dir, "call", "finish", "c1")
			bigSum := fileSum(t, big)

			st := statusStates(t, r.Dir, tc.limit)
			if st["big.bin"].State != "unrecoverable" || !strings.Contains(st["big.bin"].Reason, "size limit") {
				t.Errorf("status of big.bin: %+v, want unrecoverable with the reason", st["big.bin"])
			}
			if st["small.txt"].State != "applied" {
				t.Errorf("status of small.txt: %+v, want applied", st["small.txt"])
			}
			text := mustRun(t, r.Dir, "status", "--no-unrecorded")
			if !strings.Contains(text, "unrecoverable  big.bin") || !strings.Contains(text, "max_file_size, "+tc.limitText) {
				t.Errorf("status text does not call big.bin unrecoverable and name the limit:\n%s", text)
			}

			user, err := gittest.UserState(r.Dir, false)
			if err != nil {
				t.Fatal(err)
			}
			plain := func(args ...string) {
				t.Helper()
				out, err := gitguardCmd(t, r.Dir, nil, args...)
				if code := exitOf(err); code != exitFound {
					t.Fatalf("gitguard %s: exit %d, want %d\n%s", strings.Join(args, " "), code, exitFound, out)
				}
				if !strings.Contains(out, "1 path(s) unrecoverable: over the size limit (max_file_size, "+tc.limitText+")") || strings.Contains(out, "fsck") {
					t.Errorf("gitguard %s: want the plain size-limit message, got:\n%s", strings.Join(args, " "), out)
				}
				if got := fileSum(t, big); got != bigSum {
					t.Errorf("gitguard %s changed big.bin", strings.Join(args, " "))
				}
				if after, _ := gittest.UserState(r.Dir, false); after != user {
					t.Errorf("gitguard %s: user state changed:\n%s", strings.Join(args, " "), gittest.Diff(user, after))
				}
			}
			plain("undo")
			if got := r.Read("small.txt"); got != "small\n" {
				t.Errorf("undo left small.txt as %q", got)
			}
			st = statusStates(t, r.Dir, tc.limit)
			if st["big.bin"].State != "unrecoverable" || st["small.txt"].State != "reapplyable" {
				t.Errorf("status after undo: %+v", st)
			}
			plain("undo", "--all")
			if got := r.Read("small.txt"); got != "small\n" {
				t.Errorf("undo --all changed small.txt to %q", got)
			}
			mustRun(t, r.Dir, "redo")
			if got := r.Read("small.txt"); got != "small\nagent\n" {
				t.Errorf("redo left small.txt as %q", got)
			}
			if got := fileSum(t, big); got != bigSum {
				t.Errorf("redo changed big.bin")
			}
		})
	}
}
