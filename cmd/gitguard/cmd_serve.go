package main

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
	"github.com/gitguard/gitguard/record"
)

// "gitguard serve --stdio" speaks the JSON-lines protocol of package
// protocol (docs/PROTOCOL.md) on stdin and stdout; this file only reads
// the flags and maps errors to messages, hints and exit codes as every
// other command does (exit.go).

type serveOptions struct {
	stdio bool
	run   record.RunID
}

func newServeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve the gitguard operations as JSON lines on stdin/stdout, for agent runtimes",
		UsageText: "gitguard serve --stdio [--run RUN]",
		Description: "Reads one JSON request per line on stdin and answers each with exactly one JSON\n" +
			"line on stdout, in order:\n" +
			"  {\"id\": 1, \"op\": \"call.start\", \"call\": \"c1\", \"tool\": \"write_file\", \"paths\": [\"a.txt\"]}\n" +
			"  {\"id\": 1, \"ok\": true, \"result\": {...}}\n" +
			"  {\"id\": 1, \"ok\": false, \"error\": \"...\", \"hint\": \"...\", \"exit_code\": 2}\n" +
			"Ops: " + "run.start, run.finish, snapshot, call.plan, call.approve, call.deny,\n" +
			"call.start, call.capture_before, call.capture_after, call.finish, status, diff,\n" +
			"undo, redo, ledger, resume, version. A result is the --json document of the\n" +
			"command of the same name. Paths are relative to the top of the work tree (or\n" +
			"absolute). A request without \"run\" uses --run (GITGUARD_RUN), else the active\n" +
			"run. A malformed line gets an error line and the server goes on; end of input\n" +
			"ends it with exit status 0. See docs/PROTOCOL.md.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdio", Usage: "serve on stdin and stdout (the only transport)"},
			runFlag("the default run `RUN` of requests that name none"),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if !c.Bool("stdio") {
				return usagef("serve needs --stdio (the only transport so far)")
			}
			var p ids
			o := serveOptions{stdio: true, run: p.run(c.String("run"))}
			if p.err != nil {
				return p.err
			}
			return runServe(c.Context, e, o)
		},
	}
}

func runServe(ctx context.Context, e *env, o serveOptions) error {
	// Requests talk on stderr only with --verbose: no progress lines
	// between the protocol's answers.
	sub := *e
	sub.quiet = !e.verbose
	s := &protocol.Server{Run: o.run, Gitguard: version, Explain: explain}
	open := func(ctx context.Context) (*gitguard.Guard, error) { return sub.open(ctx) }
	return s.Serve(ctx, open, e.stdin, e.stdout)
}

// explain is classify for the protocol's responses.
func explain(err error) protocol.Failure {
	f := classify(err)
	return protocol.Failure{Message: f.err.Error(), Hint: f.hint, ExitCode: f.code}
}
