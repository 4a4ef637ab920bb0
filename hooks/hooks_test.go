package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  Action
	}{
		{"no hook", func(*testing.T, string) {}, Installed},
		{"regular hook", func(t *testing.T, dir string) { write(t, filepath.Join(dir, Name), "#!/bin/sh\necho mine\n", 0o700) }, Chained},
		{"symlinked hook", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "shared.sh"), "#!/bin/sh\n", 0o755)
			if err := os.Symlink("shared.sh", filepath.Join(dir, Name)); err != nil {
				t.Fatal(err)
			}
		}, Chained},
		{"crash between renames", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, Name+SavedSuffix), "#!/bin/sh\necho saved\n", 0o755)
		}, Chained},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.setup(t, dir)
			before := snapshot(t, dir)
			res, err := Install(dir, Options{})
			if err != nil || res.Action != tt.want {
				t.Fatalf("Install = %v, %v; want %v", res.Action, err, tt.want)
			}
			if got := read(t, filepath.Join(dir, Name)); got != string(Script()) {
				t.Fatalf("hook = %q", got)
			}
			if res, err := Install(dir, Options{}); err != nil || res.Action != AlreadyDone {
				t.Fatalf("second Install = %v, %v", res.Action, err)
			}
			if _, err := Uninstall(dir, Options{}); err != nil {
				t.Fatal(err)
			}
			after := snapshot(t, dir)
			if tt.name == "crash between renames" {
				// The saved original ends up back in place.
				before = map[string]string{Name: before[Name+SavedSuffix]}
			}
			if len(before) != len(after) {
				t.Fatalf("files after round trip = %v, want %v", after, before)
			}
			for k, v := range before {
				if after[k] != v {
					t.Fatalf("%s after round trip = %q, want %q", k, after[k], v)
				}
			}
			if res, err := Uninstall(dir, Options{}); err != nil || res.Action != NothingToUndo {
				t.Fatalf("second Uninstall = %v, %v", res.Action, err)
			}
		})
	}
}

// snapshot maps each entry of dir to its mode and content (a symlink's target).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[e.Name()] = "-> " + target
			continue
		}
		out[e.Name()] = fi.Mode().String() + " " + read(t, p)
	}
	return out
}

func TestInstallUpgradesOlderScript(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, Name), "#!/bin/sh\n# gitguard-hook: v0\nexit 0\n", 0o755)
	res, err := Install(dir, Options{})
	if err != nil || res.Action != Upgraded {
		t.Fatalf("Install = %v, %v; want upgraded", res.Action, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, Name+SavedSuffix)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an older gitguard hook was saved as if it were the user's: %v", err)
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, Name), "#!/bin/sh\n", 0o755)
	before := snapshot(t, dir)
	if res, err := Install(dir, Options{DryRun: true}); err != nil || res.Action != Chained {
		t.Fatalf("Install -n = %v, %v", res.Action, err)
	}
	after := snapshot(t, dir)
	if len(after) != len(before) || after[Name] != before[Name] {
		t.Fatalf("dry run changed %v to %v", before, after)
	}
}

func TestPrePushBesidePreCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, PrePush), "#!/bin/sh\necho mine\n", 0o755)
	if res, err := Install(dir, Options{}); err != nil || res.Action != Installed {
		t.Fatalf("Install pre-commit = %v, %v", res.Action, err)
	}
	res, err := Install(dir, Options{Hook: PrePush})
	if err != nil || res.Action != Chained {
		t.Fatalf("Install pre-push = %v, %v; want chained", res.Action, err)
	}
	if got := read(t, filepath.Join(dir, PrePush)); got != string(PrePushScript()) {
		t.Errorf("pre-push hook is not the pre-push script:\n%s", got)
	}
	if got := read(t, filepath.Join(dir, Name)); got != string(Script()) {
		t.Errorf("pre-commit hook changed:\n%s", got)
	}
	if st, err := StatusOf(dir, PrePush); err != nil || !st.Installed || !st.Current || !st.Saved {
		t.Errorf("StatusOf pre-push = %+v, %v", st, err)
	}
	if res, err := Uninstall(dir, Options{Hook: PrePush}); err != nil || res.Action != Restored {
		t.Fatalf("Uninstall pre-push = %v, %v; want restored", res.Action, err)
	}
	if got := read(t, filepath.Join(dir, PrePush)); got != "#!/bin/sh\necho mine\n" {
		t.Errorf("original pre-push hook not restored: %q", got)
	}
	if st, err := Status(dir); err != nil || !st.Installed {
		t.Errorf("pre-commit hook gone with the pre-push one: %+v, %v", st, err)
	}
}
