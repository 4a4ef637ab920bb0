package main

import (
	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

func runFlag(usage string) *cli.StringFlag {
	return &cli.StringFlag{Name: "run", Usage: usage, EnvVars: []string{"GITGUARD_RUN"}}
}

// runtimeCategory groups in help the flags an agent runtime sets and a
// person typing commands does not need.
const runtimeCategory = "AGENT RUNTIME"

// checkpointFlags are the runtime fields any recorded checkpoint may carry.
func checkpointFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "step", Usage: "the runtime's step `STEP`", Category: runtimeCategory},
		&cli.StringFlag{Name: "label", Usage: "a note for humans (`TEXT`)"},
		&cli.StringFlag{Name: "messages-ref", Usage: "where the runtime keeps the conversation (any `REF` it understands)", Category: runtimeCategory},
		&cli.StringFlag{Name: "approvals-ref", Usage: "where the runtime keeps approvals (any `REF` it understands)", Category: runtimeCategory},
		&cli.StringFlag{Name: "trace-ref", Usage: "where the trace continues (any `REF`)", Category: runtimeCategory},
		&cli.Int64Flag{Name: "budget-tokens", Usage: "`N` tokens left, as the runtime reports them", Category: runtimeCategory},
		&cli.Float64Flag{Name: "budget-usd", Usage: "`USD` left", Category: runtimeCategory},
		&cli.Int64Flag{Name: "budget-steps", Usage: "`N` steps left", Category: runtimeCategory},
	}
}

func checkpointOptions(c *cli.Context) gitguard.CheckpointOptions {
	o := gitguard.CheckpointOptions{
		StepID: c.String("step"), Label: c.String("label"),
		MessagesRef: c.String("messages-ref"), ApprovalsRef: c.String("approvals-ref"), TraceRef: c.String("trace-ref"),
	}
	var b record.Budget
	if c.IsSet("budget-tokens") {
		v := c.Int64("budget-tokens")
		b.Tokens = &v
	}
	if c.IsSet("budget-usd") {
		v := c.Float64("budget-usd")
		b.USD = &v
	}
	if c.IsSet("budget-steps") {
		v := c.Int64("budget-steps")
		b.Steps = &v
	}
	if !b.IsZero() {
		o.Budget = &b
	}
	return o
}

func flags(groups ...[]cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// noArgs rejects stray positional arguments.
// runCommandArgs reads what a command about one run takes besides its own
// flags: no arguments, --json, and --run (zero for the active run), in
// that order, so that a bad run id is reported as --json asks.
func runCommandArgs(c *cli.Context, e *env) (record.RunID, error) {
	if err := noArgs(c); err != nil {
		return "", err
	}
	wantJSON(c, e)
	return record.ParseOptionalRunID(c.String("run"))
}

func noArgs(c *cli.Context) error {
	if c.Args().Present() {
		return usagef("%s takes no arguments (got %q)", c.Command.Name, c.Args().First())
	}
	return nil
}

// ids parses the run and call ids of a command line, once, where they
// enter: each method returns the id (zero for empty text, a flag not
// given) and keeps the first error, which the command returns before it
// does anything (as bufio.Scanner keeps its error).
type ids struct{ err error }

func (p *ids) run(s string) record.RunID {
	id, err := record.ParseOptionalRunID(s)
	p.keep(err)
	return id
}

func (p *ids) call(s string) record.CallID {
	id, err := record.ParseOptionalCallID(s)
	p.keep(err)
	return id
}

func (p *ids) runs(ss []string) []record.RunID {
	out := make([]record.RunID, len(ss))
	for i, s := range ss {
		out[i] = p.run(s)
	}
	return out
}

func (p *ids) keep(err error) {
	if p.err == nil && err != nil {
		p.err = err
	}
}
