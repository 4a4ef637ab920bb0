package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// The silent-hook alarm. Hooks that do not run record nothing and say
// nothing: the agent goes on, unguarded. What gitguard can see is cheap
// and honest: an agent's hooks are set up here, its run is open (no end
// of session arrived), and files in the work tree changed after the
// run's last recorded event without any call recording them. That is
// what a session whose hooks stopped running looks like; it is also what
// the user's own edits during an idle session look like, so the alarm
// says what was seen and where to look, never that the hooks are broken.
// Only files whose modification time is after the last event count
// (a deleted file has none and is left out): a change older than the
// last event was the agent's to record then, or the user's.

// silentHookFiles returns the unrecorded changes of a run's work tree
// made after its last event at since.
func silentHookFiles(top string, changes []record.Change, since time.Time) []string {
	var out []string
	for _, c := range changes {
		fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(c.Path)))
		if err == nil && fi.ModTime().After(since) {
			out = append(out, c.Path)
		}
	}
	return out
}

// silentHookMessage is the alarm for an agent's open run whose newest
// checkpoint is cp, with files changed after it; "" when there is none
// to give.
func silentHookMessage(agentName string, run record.RunID, cp *record.Checkpoint, files []string) string {
	if cp == nil || cp.RunFinished || len(files) == 0 {
		return ""
	}
	shown := files
	if len(shown) > 3 {
		shown = append(append([]string(nil), shown[:3]...), "…")
	}
	quoted := make([]string, len(shown))
	for i, f := range shown {
		quoted[i] = record.QuotePath(f)
		if f == "…" {
			quoted[i] = f
		}
	}
	return fmt.Sprintf("%s is set up here and its run %s is open, but no hook event arrived since %s while %d file(s) changed (%s) and no call recorded them: "+
		"if the agent made them, its hooks are not running (see 'gitguard doctor')",
		agentName, run, cp.CreatedAt.Local().Format("15:04:05"), len(files), strings.Join(quoted, ", "))
}

// warnSilentHook prints the silent-hook alarm on stderr for the run a
// status or resume looked at, when its agent is set up in this work tree
// or in the user's settings.
func warnSilentHook(e *env, g *gitguard.Guard, run record.RunID, cp *record.Checkpoint, changes []record.Change) {
	// A run of another linked worktree records another work tree.
	if e.quiet || cp == nil || cp.RunFinished || len(changes) == 0 || cp.Worktree != g.WorktreeName() {
		return
	}
	for _, a := range doctorAgents() {
		if !strings.HasPrefix(string(run), a.runPrefix) {
			continue
		}
		if len(a.installed(g.WorkTree(), e.getenv("HOME"))) == 0 {
			return
		}
		files := silentHookFiles(g.WorkTree(), changes, cp.CreatedAt)
		if msg := silentHookMessage(a.spec.name, run, cp, files); msg != "" {
			fmt.Fprintf(e.stderr, "gitguard: warning: %s\n", msg)
		}
		return
	}
}
