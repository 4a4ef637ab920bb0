package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

func newDoctorCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check that gitguard's set-up for each agent works: hooks, command, trust, store, settings",
		UsageText: "gitguard doctor [--json]",
		Description: "For each agent set up in this work tree or in your settings (gitguard's hooks\n" +
			"found in its project or home settings files), checks that:\n" +
			"  hooks       every event gitguard installs runs its hook (a partial set-up is a problem)\n" +
			"  command     the hook command's program is found with this PATH\n" +
			"  hook-runs   the hook command answers a no-op event (a read-only tool's pre event)\n" +
			"              with exit 0 and no warning, recording nothing: no ref under\n" +
			"              refs/agent-checkpoints/ changes\n" +
			"  trust       the agent trusts the project where it loads project hooks only then\n" +
			"              (Codex: ~/.codex/config.toml; Gemini CLI, Qwen Code: trustedFolders.json)\n" +
			"  last-event  when the agent's last event was recorded; a warning when its run is\n" +
			"              open and files changed after it that no call recorded\n" +
			"and for the repository: git's version (2.31 or newer), the watch daemon, the\n" +
			"store (as 'gitguard fsck'), and settings that loosen what is protected where no\n" +
			"commit shows them (git config gitguard.exclude or gitguard.maxFileSize, a work\n" +
			"tree .gitguard.toml that would exclude more or move the size limit once\n" +
			"committed). Each problem comes with the command that fixes it.\n" +
			"It changes no ref, no setting and no file (looking for unrecorded changes, like\n" +
			"'gitguard status', stores the work tree's new contents in the object database).",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			return runDoctor(c.Context, e)
		},
	}
}

func runDoctor(ctx context.Context, e *env) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	d, err := newDoctor(ctx, e, g)
	if err != nil {
		return err
	}
	var agents []doctorAgentReport
	for _, s := range d.setUp("") {
		agents = append(agents, d.checkAgent(ctx, s))
	}
	repo := d.checkRepository(ctx)
	ok := healthy(agents, repo)
	var found error
	if !ok {
		found = &foundError{"problems found: each is listed with the command that fixes it"}
	}
	if e.json {
		if agents == nil {
			agents = []doctorAgentReport{}
		}
		if err := e.printJSON(jsonDoctor{Version: jsonVersion, Healthy: ok, WorkTree: d.top, Agents: agents, Repository: repo}); err != nil {
			return err
		}
		return found
	}
	if len(agents) == 0 {
		var names []string
		for _, s := range agentSpecs {
			names = append(names, s.name)
		}
		e.printf("no agent is set up here: run 'gitguard init AGENT --write' (%s)\n", strings.Join(names, ", "))
	}
	for _, a := range agents {
		e.printf("%s (%s): %s\n", a.Name, a.Title, strings.Join(a.Files, ", "))
		printChecks(e.printf, "  ", a.Checks)
	}
	e.printf("repository:\n")
	printChecks(e.printf, "  ", repo)
	return found
}

// initChecks prints the doctor's checks of one agent after 'gitguard
// init AGENT --write', on stderr: a set-up that cannot run says so at
// once. It changes nothing and its findings leave init's exit status
// alone.
func initChecks(ctx context.Context, e *env, name string) {
	if e.quiet || e.json {
		return
	}
	g, err := e.open(ctx)
	if err != nil {
		return
	}
	defer g.Close()
	d, err := newDoctor(ctx, e, g)
	if err != nil {
		return
	}
	for _, s := range d.setUp(name) {
		rep := d.checkAgent(ctx, s)
		fmt.Fprintf(e.stderr, "gitguard doctor: %s\n", name)
		printChecks(func(format string, args ...any) { fmt.Fprintf(e.stderr, format, args...) }, "  ", rep.Checks)
	}
}
