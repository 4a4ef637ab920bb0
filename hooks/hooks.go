package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
)

// Name is the hook gitguard installs by default.
const Name = "pre-commit"

// PrePush is the hook that pushes runs with the user's pushes (opt-in).
const PrePush = "pre-push"

// SavedSuffix is appended to the user's hook's name when it is saved.
const SavedSuffix = ".gitguard-orig"

// marker identifies gitguard's hook; its version lets a later gitguard
// upgrade the script in place.
const marker = "# gitguard-hook: v1"

// ErrForeignHook is returned when a pre-commit hook that is not gitguard's
// and a saved original both exist, so that going on would have to drop or
// replace one of them: by Install (unless Force) and by Uninstall.
var ErrForeignHook = errors.New("pre-commit hook is not gitguard's")

// ErrNotHookFile is returned when the hook path is not a regular file or symlink.
var ErrNotHookFile = errors.New("pre-commit hook is not a file")

// Dir returns the folder git runs the hooks of the repository containing
// dir from: core.hooksPath if set (a relative one is relative to the top of
// the work tree, where git runs hooks), else the hooks folder of the common
// git dir, which linked worktrees share. git itself resolves it.
func Dir(ctx context.Context, dir string) (string, error) {
	repo, err := git.Discover(ctx, dir)
	if err != nil {
		return "", err
	}
	out, err := repo.Git(ctx, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return "", fmt.Errorf("find the hooks folder: %w", err)
	}
	return filepath.Clean(strings.TrimRight(string(out), "\n")), nil
}

// ScriptFor returns the script of hook (Name or PrePush).
func ScriptFor(hook string) []byte {
	if hook == PrePush {
		return PrePushScript()
	}
	return Script()
}

// PrePushScript returns the pre-push hook: it runs the hook that was there
// before (saved as pre-push.gitguard-orig) with the same arguments and
// input, then 'gitguard push --pre-push', which pushes, in a push of its
// own, the runs whose work is in the commits being pushed, at their tips
// as they are now. A failure there warns and lets the user's push go on,
// unless GITGUARD_HOOK_STRICT=1. The runs' own push runs this hook again
// with GITGUARD_PRE_PUSH=1, which only runs the saved original.
func PrePushScript() []byte {
	return []byte(`#!/bin/sh
` + marker + `
# Installed by 'gitguard hook install --pre-push'; 'gitguard hook uninstall
# --pre-push' removes it and puts back the hook that was here before (saved
# as pre-push` + SavedSuffix + `).
#
# It runs that original hook first (a failure stops the push, as before),
# then 'gitguard push --pre-push', which pushes the runs whose work is in
# the commits being pushed, in a separate push of run refs only. If that
# fails, or gitguard is not on PATH, it warns and lets your push go on,
# unless GITGUARD_HOOK_STRICT=1. 'git push --no-verify' skips all of this.
input=$(cat)
orig="$(dirname -- "$0")/pre-push` + SavedSuffix + `"
if [ -f "$orig" ] && [ -x "$orig" ]; then
	if [ -n "$input" ]; then printf '%s\n' "$input"; fi | "$orig" "$@" || exit $?
fi
if [ "${GITGUARD_PRE_PUSH:-0}" = 1 ]; then
	exit 0
fi
if command -v gitguard >/dev/null 2>&1; then
	gg=gitguard
elif command -v git-guard >/dev/null 2>&1; then
	gg=git-guard
else
	if [ "${GITGUARD_HOOK_STRICT:-0}" = 1 ]; then
		echo "gitguard pre-push hook: gitguard is not on PATH; push stopped (GITGUARD_HOOK_STRICT=1)" >&2
		exit 1
	fi
	echo "gitguard pre-push hook: gitguard is not on PATH; runs not pushed" >&2
	exit 0
fi
if [ -n "$input" ]; then printf '%s\n' "$input"; fi | GITGUARD_PRE_PUSH=1 "$gg" push --pre-push -- "$1" "$2" >&2
status=$?
if [ $status -eq 0 ]; then
	exit 0
fi
if [ "${GITGUARD_HOOK_STRICT:-0}" = 1 ]; then
	echo "gitguard pre-push hook: pushing the runs failed (exit $status); push stopped (GITGUARD_HOOK_STRICT=1)" >&2
	exit $status
fi
echo "gitguard pre-push hook: pushing the runs failed (exit $status); your push goes on without them" >&2
exit 0
`)
}

// Script returns the pre-commit hook gitguard installs.
func Script() []byte {
	return []byte(`#!/bin/sh
` + marker + `
# Installed by 'gitguard hook install'; 'gitguard hook uninstall' removes it
# and puts back the hook that was here before (saved as pre-commit` + SavedSuffix + `).
#
# It runs that original hook first (a failure stops the commit, as before),
# then 'gitguard check --staged': exit 1 (found something) or 3 (integrity
# failure) stops the commit. When gitguard is not on PATH or the check
# cannot run, it warns and lets the commit through, unless
# GITGUARD_HOOK_STRICT=1. 'git commit --no-verify' skips all of this.
orig="$(dirname -- "$0")/pre-commit` + SavedSuffix + `"
if [ -f "$orig" ] && [ -x "$orig" ]; then
	"$orig" "$@" || exit $?
fi
if command -v gitguard >/dev/null 2>&1; then
	gitguard check --staged
elif command -v git-guard >/dev/null 2>&1; then
	git-guard check --staged
else
	if [ "${GITGUARD_HOOK_STRICT:-0}" = 1 ]; then
		echo "gitguard pre-commit hook: gitguard is not on PATH; commit stopped (GITGUARD_HOOK_STRICT=1)" >&2
		exit 1
	fi
	echo "gitguard pre-commit hook: gitguard is not on PATH; commit allowed without 'gitguard check --staged'" >&2
	exit 0
fi
status=$?
case $status in
0) exit 0 ;;
1|3) exit $status ;;
esac
if [ "${GITGUARD_HOOK_STRICT:-0}" = 1 ]; then
	echo "gitguard pre-commit hook: 'gitguard check --staged' failed (exit $status); commit stopped (GITGUARD_HOOK_STRICT=1)" >&2
	exit $status
fi
echo "gitguard pre-commit hook: 'gitguard check --staged' failed (exit $status); commit allowed" >&2
exit 0
`)
}

// State is what Status found in the hooks folder.
type State struct {
	Dir       string // the hooks folder
	Path      string // Dir/pre-commit
	Installed bool   // Path is gitguard's hook
	Current   bool   // ... and the same version as Script
	Hook      bool   // Path exists (gitguard's or not)
	Saved     bool   // Path + SavedSuffix exists
}

// SavedPath is where the user's original hook is kept.
func (s State) SavedPath() string { return s.Path + SavedSuffix }

// Status inspects the pre-commit hook of the hooks folder dir.
func Status(dir string) (State, error) { return StatusOf(dir, Name) }

// StatusOf inspects hook (Name or PrePush) in the hooks folder dir.
func StatusOf(dir, hook string) (State, error) {
	st := State{Dir: dir, Path: filepath.Join(dir, hook)}
	fi, err := os.Lstat(st.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return st, fmt.Errorf("inspect %s: %w", st.Path, err)
	case fi.IsDir():
		return st, fmt.Errorf("%s: %w", st.Path, ErrNotHookFile)
	default:
		st.Hook = true
		if fi.Mode().IsRegular() {
			data, err := readHead(st.Path)
			if err != nil {
				return st, err
			}
			st.Installed = isOurs(data)
			if st.Installed {
				full, err := os.ReadFile(st.Path)
				if err != nil {
					return st, err
				}
				st.Current = bytes.Equal(full, ScriptFor(hook)) && fi.Mode().Perm()&0o111 != 0
			}
		}
	}
	if _, err := os.Lstat(st.SavedPath()); err == nil {
		st.Saved = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("inspect %s: %w", st.SavedPath(), err)
	}
	return st, nil
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

func isOurs(head []byte) bool {
	for i, l := range strings.SplitN(string(head), "\n", 4) {
		if i > 0 && strings.HasPrefix(l, "# gitguard-hook: ") {
			return true
		}
	}
	return false
}

// Action is what Install or Uninstall did (or would do).
type Action string

// Actions.
const (
	Installed     Action = "installed"       // no hook was there
	Chained       Action = "chained"         // the user's hook was saved and is run first
	Upgraded      Action = "upgraded"        // an older gitguard hook was rewritten
	AlreadyDone   Action = "unchanged"       // nothing to do
	Removed       Action = "removed"         // gitguard's hook deleted, nothing to restore
	Restored      Action = "restored"        // gitguard's hook replaced by the saved original
	NothingToUndo Action = "not-installed"   // no gitguard hook found
	ReplacedSaved Action = "replaced-backup" // --force: the old saved hook was kept as a numbered backup
)

// Result reports an Install or Uninstall.
type Result struct {
	Action Action
	State  State  // before the change
	Backup string // with Force, where an older saved original was moved
}

// Options tune Install and Uninstall.
type Options struct {
	// DryRun reports what would happen and changes nothing.
	DryRun bool
	// Force lets Install go on when both a foreign hook and a saved original
	// exist: the saved original is moved to a numbered backup (never
	// deleted) and the current hook is saved and chained in its place.
	Force bool
	// Hook is the hook to install or remove: Name (the default when
	// empty) or PrePush.
	Hook string
}

func (o Options) hook() string {
	if o.Hook == "" {
		return Name
	}
	return o.Hook
}

// Install installs gitguard's hook (opts.Hook: pre-commit unless PrePush) in the hooks folder dir,
// chaining to any hook already there. It returns ErrForeignHook (wrapped)
// when a foreign hook and a saved original both exist and opts.Force is
// not set, ErrNotHookFile when pre-commit is a folder.
func Install(dir string, opts Options) (Result, error) {
	st, err := StatusOf(dir, opts.hook())
	if err != nil {
		return Result{State: st}, err
	}
	res := Result{State: st}
	switch {
	case st.Installed && st.Current:
		res.Action = AlreadyDone
		return res, nil
	case st.Installed:
		res.Action = Upgraded
	case !st.Hook:
		// A crash between install's renames leaves only the saved original;
		// chaining to it finishes that install.
		res.Action = Installed
		if st.Saved {
			res.Action = Chained
		}
	case st.Saved && !opts.Force:
		return res, fmt.Errorf("%w: %s exists and so does %s, saved by an earlier install", ErrForeignHook, st.Path, st.SavedPath())
	default:
		res.Action = Chained
	}
	if opts.DryRun {
		return res, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("create hooks folder: %w", err)
	}
	// Write the new hook first so that the original is never left without
	// a hook that runs it.
	tmp, err := writeTemp(dir, ScriptFor(opts.hook()))
	if err != nil {
		return res, err
	}
	defer os.Remove(tmp)
	if st.Hook && !st.Installed {
		if st.Saved {
			res.Backup, err = freeName(st.SavedPath())
			if err != nil {
				return res, err
			}
			if err := os.Rename(st.SavedPath(), res.Backup); err != nil {
				return res, fmt.Errorf("keep %s: %w", st.SavedPath(), err)
			}
		}
		if err := os.Rename(st.Path, st.SavedPath()); err != nil {
			return res, fmt.Errorf("save %s: %w", st.Path, err)
		}
	}
	if err := os.Rename(tmp, st.Path); err != nil {
		return res, fmt.Errorf("install %s: %w", st.Path, err)
	}
	return res, syncDir(dir)
}

// Uninstall removes gitguard's hook (opts.Hook) from the hooks folder dir and
// puts the saved original back. A pre-commit hook that is not gitguard's is
// left alone (NothingToUndo); if a saved original exists too, it returns
// ErrForeignHook (wrapped).
func Uninstall(dir string, opts Options) (Result, error) {
	st, err := StatusOf(dir, opts.hook())
	res := Result{State: st}
	if err != nil {
		return res, err
	}
	switch {
	case st.Hook && !st.Installed && st.Saved:
		return res, fmt.Errorf("%w: %s was replaced after gitguard installed its hook; the original is still saved as %s", ErrForeignHook, st.Path, st.SavedPath())
	case st.Hook && !st.Installed:
		res.Action = NothingToUndo // someone else's hook: not ours to remove
		return res, nil
	case st.Saved:
		res.Action = Restored
	case st.Installed:
		res.Action = Removed
	default:
		res.Action = NothingToUndo
		return res, nil
	}
	if opts.DryRun {
		return res, nil
	}
	if st.Saved {
		// One rename replaces gitguard's hook with the original atomically.
		if err := os.Rename(st.SavedPath(), st.Path); err != nil {
			return res, fmt.Errorf("restore %s: %w", st.Path, err)
		}
	} else if err := os.Remove(st.Path); err != nil {
		return res, fmt.Errorf("remove %s: %w", st.Path, err)
	}
	return res, syncDir(dir)
}

func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".pre-commit.gitguard-tmp-")
	if err != nil {
		return "", fmt.Errorf("write hook: %w", err)
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o755)
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("write hook: %w", err)
	}
	return name, nil
}

func freeName(base string) (string, error) {
	for i := 1; i < 1000; i++ {
		p := fmt.Sprintf("%s.%d", base, i)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no free backup name for %s", base)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	_ = d.Sync() // best effort: not every file system syncs folders
	return nil
}
