package agent

import (
	"context"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// TestDaemonStopInDaemon: recorded in the watch daemon's own process
// (Options.DaemonStop), the end of the run whose hook started the daemon
// stops it through DaemonStop, never over its socket, and a session
// starting that ends that run keeps the daemon for its own run instead.
func TestDaemonStopInDaemon(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	ctx := context.Background()
	open := func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{})
	}
	stops := 0
	handle := func(ev *Event) Result {
		t.Helper()
		ev.Agent, ev.Cwd = "Codex", r.Dir
		res, err := Handle(ctx, ev, Options{Open: open, DaemonStop: func() { stops++ }})
		if err != nil {
			t.Fatalf("%s: %v", ev.Name, err)
		}
		return res
	}
	g, err := open(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	state := g.StateDir()

	// Session A's hook started the daemon; A records a call.
	if err := markDaemon(state, "cx-a"); err != nil {
		t.Fatal(err)
	}
	handle(&Event{Kind: Pre, Name: "PreToolUse", RunID: "cx-a", CallID: "c1", Tool: "Bash", Whole: true})
	handle(&Event{Kind: Post, Name: "PostToolUse", RunID: "cx-a", CallID: "c1", Tool: "Bash", Whole: true})

	// Session B starts: A's run ends, the daemon goes on for B.
	handle(&Event{Kind: SessionStart, Name: "SessionStart", RunID: "cx-b", EndOthers: "cx-"})
	if stops != 0 {
		t.Errorf("a session starting stopped the daemon %d times, want it kept", stops)
	}
	if !daemonMarked(state, "cx-b") || daemonMarked(state, "cx-a") {
		t.Error("the daemon is not kept for session B's run")
	}
	run, err := g.ReadRunCalls(ctx, "cx-a")
	if err != nil || !run.Checkpoint.RunFinished {
		t.Fatalf("session A's run: finished %v (%v), want finished", run != nil && run.Checkpoint.RunFinished, err)
	}

	// Session B ends: the daemon stops, once.
	handle(&Event{Kind: SessionEnd, Name: "Stop", RunID: "cx-b"})
	if stops != 1 {
		t.Errorf("session B's end stopped the daemon %d times, want once", stops)
	}
	if daemonMarked(state, "cx-b") {
		t.Error("the daemon's marker outlived its stop")
	}

	// A session's end the daemon was not started for stops nothing.
	handle(&Event{Kind: SessionEnd, Name: "Stop", RunID: record.RunID("cx-c")})
	if stops != 1 {
		t.Errorf("another session's end stopped the daemon: %d stops", stops)
	}
}
