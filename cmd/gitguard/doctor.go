package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/record"
)

// The doctor checks that the set-up cannot fail silently: each agent set
// up in the work tree or in the user's settings has gitguard's hooks for
// every event, a command that starts and answers, and the trust its
// agent needs to load them; and the repository has a git gitguard works
// with, an intact store, no settings that quietly loosen what is
// protected. It changes no ref, setting or file: the hook command is run
// with an event gitguard answers without recording, and the refs under
// refs/agent-checkpoints/ are compared before and after.

// Check states, as --json prints them.
const (
	statusOK      = "ok"
	statusProblem = "problem" // exit 1, with a fix
	statusWarn    = "warn"    // seen, worth a look, not proof of a problem
	statusInfo    = "info"
)

// noopTimeout bounds the run of a hook command with the no-op event.
const noopTimeout = 30 * time.Second

// doctorCheck is one line of the doctor's report.
type doctorCheck struct {
	Name    string `json:"check"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

func (c doctorCheck) ok(msg string) doctorCheck {
	c.Status, c.Message = statusOK, msg
	return c
}

func (c doctorCheck) problem(msg, fix string) doctorCheck {
	c.Status, c.Message, c.Fix = statusProblem, msg, fix
	return c
}

// doctorAgentReport is the checks of one agent set up here.
type doctorAgentReport struct {
	Name   string        `json:"name"`
	Title  string        `json:"title"`
	Files  []string      `json:"files"`
	Checks []doctorCheck `json:"checks"`
}

// jsonDoctor is the --json document of 'gitguard doctor'.
type jsonDoctor struct {
	Version    int                 `json:"version"`
	Healthy    bool                `json:"healthy"`
	WorkTree   string              `json:"worktree"`
	Agents     []doctorAgentReport `json:"agents"`
	Repository []doctorCheck       `json:"repository"`
}

// doctor holds what every check reads.
type doctor struct {
	e    *env
	g    *gitguard.Guard
	top  string
	home string
	runs []record.RunInfo
}

func newDoctor(ctx context.Context, e *env, g *gitguard.Guard) (*doctor, error) {
	d := &doctor{e: e, g: g, top: g.WorkTree(), home: e.getenv("HOME")}
	if runtime.GOOS == "windows" && d.home == "" {
		d.home = e.getenv("USERPROFILE")
	}
	runs, err := g.ListRuns(ctx)
	if err != nil {
		return nil, err
	}
	d.runs = runs
	return d, nil
}

// setUp returns the agents whose hooks are in the work tree's or the
// user's settings, each with the files that hold them; only is one
// agent's name, or "" for all.
func (d *doctor) setUp(only string) []agentSetUp {
	var out []agentSetUp
	for _, a := range doctorAgents() {
		if only != "" && a.spec.name != only {
			continue
		}
		if files := a.installed(d.top, d.home); len(files) > 0 {
			out = append(out, agentSetUp{a, files})
		}
	}
	return out
}

type agentSetUp struct {
	agent *doctorAgent
	files []installedHooks
}

// checkAgent runs every check of one agent set up here.
func (d *doctor) checkAgent(ctx context.Context, s agentSetUp) doctorAgentReport {
	a := s.agent
	rep := doctorAgentReport{Name: a.spec.name, Title: a.spec.title}
	project := false
	var commands []string
	seen := map[string]bool{}
	for _, f := range s.files {
		rep.Files = append(rep.Files, f.display())
		project = project || !f.file.user
		c := doctorCheck{Name: "hooks"}
		switch {
		case f.err != nil:
			rep.Checks = append(rep.Checks, c.problem(fmt.Sprintf("%s: %v", f.display(), f.err),
				"fix the file by hand, or move it away and run '"+f.initCommand(a.spec.name)+"'"))
		case len(f.missing) > 0:
			rep.Checks = append(rep.Checks, c.problem(missingMessage(f), f.fix(a.spec.name)))
		default:
			rep.Checks = append(rep.Checks, c.ok(f.display()+": every event gitguard needs runs its hook"))
		}
		for _, cmd := range f.commands {
			if !seen[cmd] {
				seen[cmd] = true
				commands = append(commands, cmd)
			}
		}
	}
	for _, cmd := range commands {
		rep.Checks = append(rep.Checks, d.checkHookCommand(ctx, a, cmd)...)
	}
	if a.trust != nil && project {
		rep.Checks = append(rep.Checks, a.trust(d, d.top))
	}
	rep.Checks = append(rep.Checks, d.lastEvent(ctx, a))
	return rep
}

// checkHookCommand checks that a hook command starts (its program is found
// with this PATH) and answers a no-op event with exit 0 and no warning,
// recording nothing.
func (d *doctor) checkHookCommand(ctx context.Context, a *doctorAgent, command string) []doctorCheck {
	c := doctorCheck{Name: "command"}
	if err := checkCommand(command, d.e.getenv); err != nil {
		prog, _ := commandProgram(command)
		fix := "put " + prog + " on PATH, or name it by absolute path in the hook command ('gitguard init " + a.spec.name +
			"' prints the hooks with the path this gitguard finds)"
		return []doctorCheck{c.problem(err.Error(), fix)}
	}
	out := []doctorCheck{c.ok(fmt.Sprintf("%q starts with this PATH", command))}
	c = doctorCheck{Name: "hook-runs"}
	ev, err := json.Marshal(a.noop(d.top))
	if err != nil {
		return append(out, c.problem(err.Error(), ""))
	}
	fix := "see why by hand, in " + d.top + ": echo " + shellQuote(string(ev)) + " | " + command
	before, err := d.g.NamespaceRefs(ctx)
	if err != nil {
		return append(out, c.problem(err.Error(), "gitguard fsck"))
	}
	stderr, err := runNoop(ctx, d.top, command, ev)
	after, lerr := d.g.NamespaceRefs(ctx)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return append(out, c.problem(fmt.Sprintf("%q did not answer a no-op event within %s", command, noopTimeout), fix))
	case err != nil:
		return append(out, c.problem(fmt.Sprintf("%q failed on a no-op event: %v%s", command, err, quoteStderr(stderr)), fix))
	case strings.Contains(stderr, "gitguard:"):
		return append(out, c.problem(fmt.Sprintf("%q warned on a no-op event:%s", command, quoteStderr(stderr)), fix))
	case lerr != nil:
		return append(out, c.problem(lerr.Error(), fix))
	}
	if changed := changedRefs(before, after); len(changed) > 0 {
		return append(out, c.problem(fmt.Sprintf("a no-op event through %q changed %s (or another session recorded meanwhile)",
			command, strings.Join(changed, ", ")), fix))
	}
	return append(out, c.ok("a no-op event goes through the hook and back, recording nothing"))
}

func quoteStderr(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return "\n    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// missingMessage says what a settings file lacks: events without the
// hook, or hooks that init would update (a matcher to widen, an older
// plugin to replace).
func missingMessage(f installedHooks) string {
	var events, updates []string
	for _, m := range f.missing {
		if strings.Contains(m, " (") {
			updates = append(updates, m)
		} else {
			events = append(events, m)
		}
	}
	var parts []string
	if len(events) > 0 {
		parts = append(parts, fmt.Sprintf("lacks gitguard's hook for %s: those events are not recorded", strings.Join(events, ", ")))
	}
	if len(updates) > 0 {
		parts = append(parts, fmt.Sprintf("has hooks an older gitguard wrote: %s", strings.Join(updates, "; ")))
	}
	return f.display() + " " + strings.Join(parts, "; it ")
}

// changedRefs lists the refs that differ between two listings.
func changedRefs(before, after map[string]record.Hash) []string {
	var out []string
	for name, h := range after {
		if old, ok := before[name]; !ok || old != h {
			out = append(out, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// newestRun is the agent's most recently active run in this work tree
// (runs of other linked worktrees of the repository are theirs), or nil.
func (d *doctor) newestRun(prefix string) *record.RunInfo {
	var best *record.RunInfo
	wt := d.g.WorktreeName()
	for i := range d.runs {
		r := &d.runs[i]
		if r.Last == nil || r.Last.Worktree != wt || !strings.HasPrefix(string(r.ID), prefix) {
			continue
		}
		if best == nil || r.Last.CreatedAt.After(best.Last.CreatedAt) {
			best = r
		}
	}
	return best
}

// lastEvent says when the agent's last recorded event arrived, and warns
// when its run is open while the work tree changed outside any call.
func (d *doctor) lastEvent(ctx context.Context, a *doctorAgent) doctorCheck {
	c := doctorCheck{Name: "last-event", Status: statusInfo}
	r := d.newestRun(a.runPrefix)
	if r == nil {
		c.Message = "no event recorded in this repository yet (runs " + a.runPrefix + "…)"
		return c
	}
	state := "finished"
	if !r.Finished {
		state = "open"
	}
	c.Message = fmt.Sprintf("%s (run %s, %s)", r.Last.CreatedAt.Local().Format("2006-01-02 15:04:05"), r.ID, state)
	if r.Finished {
		return c
	}
	st, err := d.g.Status(ctx, r.ID, gitguard.StatusOptions{Unrecorded: true})
	if err != nil {
		return c
	}
	if msg := silentHookMessage(a.spec.name, r.ID, st.Checkpoint.Checkpoint,
		silentHookFiles(d.top, st.Unrecorded, st.Checkpoint.Checkpoint.CreatedAt)); msg != "" {
		c.Status, c.Message = statusWarn, msg
	}
	return c
}

// checkRepository runs the checks that are not an agent's.
func (d *doctor) checkRepository(ctx context.Context) []doctorCheck {
	var out []doctorCheck
	c := doctorCheck{Name: "git"}
	if v, ok, err := gitguard.GitVersion(ctx); err != nil {
		out = append(out, c.problem(err.Error(), "install git 2.31 or newer and put it on PATH"))
	} else if !ok {
		out = append(out, c.problem("git "+v+" is older than 2.31, which gitguard needs", "install git 2.31 or newer and put it on PATH"))
	} else {
		out = append(out, c.ok("git "+v))
	}
	out = append(out, d.checkDaemon(ctx))
	c = doctorCheck{Name: "store"}
	if rep, err := d.g.Fsck(ctx, gitguard.FsckOptions{}); err != nil {
		out = append(out, c.problem("fsck: "+err.Error(), "gitguard fsck"))
	} else if len(rep.Damaged) > 0 {
		var ids []string
		for _, dm := range rep.Damaged {
			ids = append(ids, string(dm.Run))
		}
		out = append(out, c.problem(fmt.Sprintf("%d of %d run(s) damaged: %s", len(rep.Damaged), rep.Checked, strings.Join(ids, ", ")),
			"gitguard fsck --repair"))
	} else {
		out = append(out, c.ok(fmt.Sprintf("%d run(s), every checkpoint and object in place", rep.Checked)))
	}
	out = append(out, d.checkSettings(ctx)...)
	return out
}

// checkDaemon says whether the work tree's watch daemon runs: not a
// problem either way (the hook starts it), but what to expect.
func (d *doctor) checkDaemon(ctx context.Context) doctorCheck {
	c := doctorCheck{Name: "watch", Status: statusInfo}
	if err := d.g.WatchAvailable(); err != nil {
		c.Message = "no watch daemon on this system: every whole-workspace capture walks the work tree"
		return c
	}
	st, err := d.g.WatchStatus(ctx, false)
	switch {
	case errors.Is(err, gitguard.ErrNoDaemon):
		c.Message = "no watch daemon runs (the first recorded tool use starts one)"
	case err != nil:
		c.Status, c.Message = statusWarn, "watch daemon: "+err.Error()
	default:
		c.Message = fmt.Sprintf("watch daemon %d runs since %s", st.PID, st.Since.Local().Format("2006-01-02 15:04:05"))
	}
	return c
}

// checkSettings finds settings that loosen what is protected where no
// commit shows them: gitguard.* keys of git config, and a .gitguard.toml
// edited in the work tree (read by no run, but by every run once it is
// committed). Loosening is leaving paths out (exclude) or moving the size
// limit: below it files are recorded by hash only, and undo cannot
// restore them; above the default every snapshot copies larger files.
func (d *doctor) checkSettings(ctx context.Context) []doctorCheck {
	c := doctorCheck{Name: "settings"}
	cfg, err := d.g.GitConfigSettings()
	if err != nil {
		return []doctorCheck{c.problem(err.Error(), "git config --unset-all the key it names")}
	}
	var out []doctorCheck
	if len(cfg.Exclude) > 0 {
		out = append(out, c.problem(fmt.Sprintf("git config gitguard.exclude leaves %s out of every snapshot", strings.Join(cfg.Exclude, ", ")),
			"git config --unset-all gitguard.exclude (unless you set it)"))
	}
	if msg := sizeChange(cfg.MaxFileSize, 0); msg != "" {
		out = append(out, c.problem("git config gitguard.maxFileSize "+msg, "git config --unset-all gitguard.maxFileSize (unless you set it)"))
	}
	if msgs := d.workTreeLoosens(ctx); len(msgs) > 0 {
		for _, m := range msgs {
			out = append(out, c.problem("the work tree's .gitguard.toml, once committed, "+m,
				"git diff HEAD -- .gitguard.toml; git checkout HEAD -- .gitguard.toml (unless you wrote it)"))
		}
	} else if msg := d.g.ConfigNotice(ctx); msg != "" {
		out = append(out, doctorCheck{Name: "settings", Status: statusInfo, Message: msg})
	}
	if len(out) == 0 {
		out = append(out, c.ok("nothing in git config or the work tree loosens what is protected"))
	}
	return out
}

// sizeChange says how a configured size limit moves the one in force
// (base; 0 for the default), or "" when it does not.
func sizeChange(size, base int64) string {
	if base == 0 {
		base = gitguard.DefaultMaxFileSize
	}
	if size == 0 {
		size = gitguard.DefaultMaxFileSize
	}
	switch {
	case size == base:
		return ""
	case size < 0:
		return "lifts the size limit: every snapshot copies files of any size"
	case base < 0 || size < base:
		return fmt.Sprintf("lowers the size limit to %d bytes: larger files are recorded by hash only, and undo cannot restore them", size)
	}
	return fmt.Sprintf("raises the size limit to %d bytes (from %d): every snapshot copies larger files", size, base)
}

// workTreeLoosens compares the work tree's .gitguard.toml with HEAD's.
func (d *doctor) workTreeLoosens(ctx context.Context) []string {
	data, err := os.ReadFile(filepath.Join(d.top, config.FileName))
	if err != nil {
		return nil
	}
	wt, err := config.Parse(config.FileName, data)
	if err != nil {
		return nil // ConfigNotice and every run's start say what is wrong with it
	}
	head, err := d.g.HeadConfig(ctx)
	if err != nil {
		return nil
	}
	if head == nil {
		head = &config.Config{}
	}
	var out, added []string
	for _, x := range wt.Exclude {
		if !slices.Contains(head.Exclude, x) {
			added = append(added, x)
		}
	}
	if len(added) > 0 {
		out = append(out, "leaves "+strings.Join(added, ", ")+" out of every snapshot")
	}
	if msg := sizeChange(wt.MaxFileSize, head.MaxFileSize); msg != "" {
		out = append(out, msg)
	}
	return out
}

// healthy reports whether no check found a problem.
func healthy(agents []doctorAgentReport, repo []doctorCheck) bool {
	for _, a := range agents {
		for _, c := range a.Checks {
			if c.Status == statusProblem {
				return false
			}
		}
	}
	for _, c := range repo {
		if c.Status == statusProblem {
			return false
		}
	}
	return true
}

// printChecks prints one line per check, and under a problem its fix.
func printChecks(w func(format string, args ...any), indent string, checks []doctorCheck) {
	for _, c := range checks {
		w("%s%-7s %-11s %s\n", indent, c.Status, c.Name, c.Message)
		if c.Fix != "" {
			w("%s        fix: %s\n", indent, strings.ReplaceAll(c.Fix, "\n", "\n"+indent+"             "))
		}
	}
}
