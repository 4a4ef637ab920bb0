package hookserve_test

import (
	"context"
	"io"
	"log"
	"os"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/claudecode"
	"github.com/gitguard/gitguard/hookserve"
)

// A program that embeds gitguard serves the work tree's watch daemon,
// recording the Claude Code hook events handed to it, until ctx ends.
func ExampleNewDaemon() {
	ctx := context.Background()
	open := func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{Getenv: os.Getenv})
	}
	g, err := open(ctx, ".")
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	d, err := hookserve.NewDaemon(ctx, g, hookserve.Options{
		Open:   open,
		Getenv: os.Getenv,
		Agents: []hookserve.Agent{{Name: "claude-code", Read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return claudecode.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	if err := d.Serve(ctx, 0); err != nil {
		log.Fatal(err)
	}
}

// A hook hands its event to the daemon, and records it itself when none
// takes it.
func ExampleHandOff() {
	ctx := context.Background()
	event, _ := io.ReadAll(io.LimitReader(os.Stdin, hookserve.MaxPayload))
	ans, err := hookserve.HandOff(ctx, ".", os.Getenv, hookserve.Request{Agent: "claude-code", Event: event})
	if err != nil {
		// gitguard.ErrNoDaemon or hookserve.ErrRefused: record it here
		// (agent.Handle).
		return
	}
	io.WriteString(os.Stderr, ans.Stderr)
	os.Exit(ans.Exit)
}
