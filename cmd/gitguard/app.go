package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// env is what every command gets: the streams, the global flags and a way
// to open the repository.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dir            string
	json           bool
	verbose, quiet bool
	printedJSON    bool // a --json document went to stdout: the one result of the call
	log            *slog.Logger
	getenv         func(string) string
	settings       settingsFlags // --exclude, --max-file-size
}

func (e *env) open(ctx context.Context) (*gitguard.Guard, error) { return e.openAt(ctx, e.dir) }

// openRecords opens the repository's runs for reading only: the commands
// that just read records (runs, log, show, ledger, diff) work in a bare
// repository too.
func (e *env) openRecords(ctx context.Context) (*gitguard.Guard, error) {
	return gitguard.OpenRecords(ctx, e.dir, gitguard.Options{Logger: e.log, Getenv: e.getenv,
		Workspace: gitguard.WorkspaceOptions{UseDaemon: e.getenv("GITGUARD_NO_DAEMON") != "1"}})
}

// openAt opens the repository containing dir. Whole-workspace snapshots
// ask the work tree's watch daemon first unless GITGUARD_NO_DAEMON=1.
func (e *env) openAt(ctx context.Context, dir string) (*gitguard.Guard, error) {
	return gitguard.Open(ctx, dir, gitguard.Options{Logger: e.log, Getenv: e.getenv,
		Workspace: gitguard.WorkspaceOptions{Progress: e.progress(), UseDaemon: e.getenv("GITGUARD_NO_DAEMON") != "1",
			Exclude: e.settings.exclude, MaxFileSize: e.settings.maxFileSize}})
}

// usagef is bad command-line input (exit 2), as the library's own
// usage errors are.
func usagef(format string, args ...any) error {
	return &gitguard.UsageError{Err: fmt.Errorf(format, args...)}
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	gitguard.ArmFaults(os.Getenv("GITGUARD_FAULT"), os.Getenv("GITGUARD_FAULT_LOG"))
	defer startProfile(os.Getenv, stderr)()
	app := newAppFor(e, args)
	args = helpTopicArgs(app, args)
	err := unknownCommand(app, args)
	if err == nil {
		var argv []string
		if argv, err = permuteArgs(app, args); err == nil {
			err = app.RunContext(ctx, argv)
		}
	}
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = errInterrupted
	}
	return report(e, err)
}

var errInterrupted = errors.New("interrupted")

// newApp builds the app with every command ready to run.
func newApp(e *env) *cli.App { return newAppFor(e, nil) }

// newAppFor builds the app to run args: see invokedCommand.
func newAppFor(e *env, args []string) *cli.App {
	app := &cli.App{
		Name:    "gitguard",
		Usage:   "guard a git workspace while a coding agent edits it",
		Version: version,
		Description: "gitguard records checkpoints of the work tree, the index and HEAD under\n" +
			"refs/agent-checkpoints/, records each agent tool call's file patches, and\n" +
			"undoes only the agent's edits. It never writes your branches, HEAD, index or stash.",
		Reader:          e.stdin,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {},

		EnableBashCompletion: true, // gitguard completion; see cmd_completion.go

		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &gitguard.UsageError{Err: err}
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "repo", Aliases: []string{"C"}, Usage: "run as if started in `DIR`", EnvVars: []string{"GITGUARD_REPO"}},
			&cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "log progress to stderr"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only errors"},
			excludeFlag, maxFileSizeFlag,
			// urfave's own --version would be -v too, which is --verbose
			// here, as in git: the app has a flag of its own (HideVersion).
			&cli.BoolFlag{Name: "version", Usage: "print the version"},
		},
		HideVersion: true,
		Action: func(c *cli.Context) error {
			if c.Bool("version") {
				_, err := io.WriteString(c.App.Writer, versionLine()+"\n")
				return err
			}
			return cli.ShowAppHelp(c)
		},
		Before: func(c *cli.Context) error {
			if err := e.settings.parse(c); err != nil {
				return err
			}
			e.dir = c.String("repo")
			if e.dir == "" {
				e.dir = "."
			}
			e.json = c.Bool("json")
			e.verbose, e.quiet = c.Bool("verbose"), c.Bool("quiet")
			level := slog.LevelWarn
			if e.verbose {
				level = slog.LevelInfo
			}
			if e.getenv("GITGUARD_DEBUG") == "1" {
				level = slog.LevelDebug
			}
			e.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
			if level == slog.LevelDebug {
				gitguard.SetGitLogger(e.log)
			}
			return nil
		},
		Commands: commands(e),
	}
	only := invokedCommand(app, args)
	for _, c := range app.Commands {
		withCommonHelp(c)
		if only == nil || c == only {
			withLocalGlobals(e, c)
		}
	}
	return app
}

// commands is every command, in the order of help: the run, its calls and
// what to do with them, then git integration. Each is built in the file
// named after it (cmd_<name>.go).
func commands(e *env) []*cli.Command {
	return []*cli.Command{
		newStartCommand(e),
		newSnapshotCommand(e),
		newFinishCommand(e),
		newLogCommand(e),
		newShowCommand(e),
		newRunsCommand(e),
		newCallCommand(e),
		newStatusCommand(e),
		newDiffCommand(e),
		newUndoCommand(e),
		newRedoCommand(e),
		newUICommand(e),
		newLedgerCommand(e),
		newResumeCommand(e),
		newCompensateCommand(e),
		newRunCommand(e),
		newInitCommand(e),
		newHookCommand(e),
		newMCPCommand(e),
		newServeCommand(e),
		newCheckCommand(e),
		newPushCommand(e),
		newFetchCommand(e),
		newPruneCommand(e),
		newFsckCommand(e),
		newDoctorCommand(e),
		newWatchCommand(e),
		newCompletionCommand(e),
		newVersionCommand(e),
	}
}

// exitFoundMeaning says what exit status 1 means for the commands that
// use it; the others never exit 1.
var exitFoundMeaning = map[string]string{
	"status": "conflicted paths remain (--exit-zero: 0)",
	"check":  "the work tree or the staged changes drifted from the checkpoint",
	"undo":   "paths were left as they are: your edits overlap the agent's",
	"redo":   "paths were left as they are: edits overlap",
	"push":   "the remote rejected a run",
	"fetch":  "a remote run diverged from the local one and was not taken",
	"watch":  "no watch daemon serves the work tree",
	"doctor": "a check found a problem (each is listed with the command that fixes it)",
	"fsck":   "damaged runs were found (and, with --repair, all repaired); 3: one could not be",
}

// exitStatusHelp is the EXIT STATUS section of a command's help.
func exitStatusHelp(name string) string {
	found := ""
	if m := exitFoundMeaning[name]; m != "" {
		found = "\n   1   " + m
	}
	return "EXIT STATUS\n   0   ok" + found + `
   2   usage or bad input (not a git repository, unknown run, call or checkpoint)
   3   integrity failure: corrupt or hostile checkpoint data, nothing was used
   4   busy: a concurrent update kept winning
   5   internal failure
   130 interrupted`
}

// withCommonHelp adds the exit-status section and usage-error mapping to a
// command and its subcommands.
func withCommonHelp(c *cli.Command) {
	withCommonHelpAs(c, c.Name)
}

func withCommonHelpAs(c *cli.Command, top string) {
	if c.Description != "" {
		c.Description += "\n\n"
	}
	c.Description += exitStatusHelp(top)
	c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return &gitguard.UsageError{Err: err} }
	for _, sub := range c.Subcommands {
		withCommonHelpAs(sub, top)
	}
}

// withLocalGlobals lets the global flags follow the command name too
// (gitguard status -C DIR -q --json), as users type them.
func withLocalGlobals(e *env, c *cli.Command) {
	for _, sub := range c.Subcommands {
		withLocalGlobals(e, sub)
	}
	if c.Action == nil {
		return
	}
	names := map[string]bool{}
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			names[n] = true
		}
	}
	has := func(name string) bool { return names[name] }
	c.Flags = append(c.Flags,
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only errors", Category: globalCategory},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "log progress to stderr", Category: globalCategory},
	)
	if !has("repo") && !has("C") {
		c.Flags = append(c.Flags, &cli.StringFlag{Name: "repo", Aliases: []string{"C"}, Usage: "run as if started in `DIR`", Category: globalCategory})
	}
	if !has("json") {
		c.Flags = append(c.Flags, &cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout", Category: globalCategory})
	}
	prev := c.Before
	c.Before = func(cc *cli.Context) error {
		if d := cc.String("repo"); d != "" {
			e.dir = d
		}
		if cc.Bool("json") {
			e.json = true
		}
		if cc.Bool("quiet") {
			e.quiet = true
		}
		if cc.Bool("verbose") && !e.verbose {
			e.verbose = true
			e.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
		}
		if prev != nil {
			return prev(cc)
		}
		return nil
	}
}

// jsonFlag lets --json be given after the command name too.
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print machine-readable JSON on stdout"}

func wantJSON(c *cli.Context, e *env) bool {
	if c.Bool("json") {
		e.json = true
	}
	return e.json
}

// printf prints a command's text output on stdout, unless --quiet: then
// only errors are printed. JSON documents go through printJSON.
func (e *env) printf(format string, args ...any) {
	fmt.Fprintf(e.text(), format, args...)
}

// text is where a command's text output goes: stdout, or nowhere under
// --quiet.
func (e *env) text() io.Writer {
	if e.quiet && !e.json {
		return io.Discard
	}
	return e.stdout
}

// globalCategory groups the flags every command takes in help.
const globalCategory = "GLOBAL"

// say prints a progress or status line to stderr unless --quiet.
func (e *env) say(format string, args ...any) {
	if !e.quiet {
		fmt.Fprintf(e.stderr, format+"\n", args...)
	}
}
