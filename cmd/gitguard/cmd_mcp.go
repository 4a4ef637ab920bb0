package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/mcpserver"
	"github.com/gitguard/gitguard/record"
)

func newMCPCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve the run to the agent's model as an MCP server over stdio",
		UsageText: "gitguard mcp [--run RUN]",
		Description: "Speaks the Model Context Protocol on stdin/stdout, for an agent to start as a\n" +
			"stdio MCP server ('gitguard init AGENT --write --mcp' registers it). Tools:\n" +
			"status, diff, ledger, resume, checkpoint, undo and redo; resource\n" +
			"gitguard://resume. The server serves one run: --run RUN, or the run active in\n" +
			"the work tree when the first request needs one. undo and redo reach only that\n" +
			"run's calls and only plan unless the model passes confirm: true. Logs go to\n" +
			"stderr; stdout carries the protocol only. A line that is not a JSON-RPC\n" +
			"message is answered with a JSON-RPC error (-32700 or -32600) and the server\n" +
			"goes on; at the end of stdin every request read is answered before it exits.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "serve run `ID` (default: the active run)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			run, err := record.ParseOptionalRunID(c.String("run"))
			if err != nil {
				return err
			}
			return runMCP(c.Context, e, run, mcpserver.Stdio(e.stdin, e.stdout))
		},
	}
}

func runMCP(ctx context.Context, e *env, run record.RunID, t mcp.Transport) error {
	srv := mcpserver.New(mcpserver.Options{Run: run, Version: version,
		Open: func(ctx context.Context) (*gitguard.Guard, error) { return e.open(ctx) }})
	err := srv.Run(ctx, t)
	if ctx.Err() != nil {
		return nil // the client went away or the user interrupted: a normal end
	}
	return err
}
