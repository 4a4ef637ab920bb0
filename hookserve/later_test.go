package hookserve_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/hookserve"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// gatedOpen opens the repository for the daemon's hook events; once armed,
// the next open waits for the gate to open, or fails with the error set.
type gatedOpen struct {
	mu      sync.Mutex
	gate    chan struct{}
	fail    error
	entered chan struct{}
}

func (o *gatedOpen) arm(fail error) (release func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	gate := make(chan struct{})
	o.gate, o.fail, o.entered = gate, fail, make(chan struct{})
	return func() { close(gate) }
}

func (o *gatedOpen) open(ctx context.Context, dir string) (*gitguard.Guard, error) {
	o.mu.Lock()
	gate, fail, entered := o.gate, o.fail, o.entered
	o.gate, o.fail = nil, nil
	o.mu.Unlock()
	if gate != nil {
		close(entered)
		<-gate
		if fail != nil {
			return nil, fail
		}
	}
	return gitguard.Open(ctx, dir, gitguard.Options{})
}

// A tool use's end is answered before it is recorded: its hook returns
// while the recording waits, and the run's ref still names the call
// started. Every later event waits for that recording, and so does Close.
// A failure to record it is said at the run's next event; failing closed,
// the end is recorded before the answer, which carries the failure.
// (gittest.New checks git fsck at the end.)
func TestToolUseEndAnsweredFirst(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	user := userState(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	plain := func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{})
	}
	g, err := plain(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	top := g.WorkTree()
	const run = record.RunID("fk-later")
	tool := func(kind agent.Kind, call record.CallID) agent.Event {
		name := map[agent.Kind]string{agent.Pre: "PreToolUse", agent.Post: "PostToolUse"}[kind]
		return agent.Event{Agent: "Fake", Name: name, Kind: kind, RunID: run, CallID: call, Tool: "Edit", Paths: []string{"a.txt"}, Cwd: top}
	}
	events := map[string]agent.Event{
		"pre1": tool(agent.Pre, "c1"), "post1": tool(agent.Post, "c1"),
		"pre2": tool(agent.Pre, "c2"), "post2": tool(agent.Post, "c2"),
		"pre3": tool(agent.Pre, "c3"), "post3": tool(agent.Post, "c3"),
		"pre4": tool(agent.Pre, "c4"), "post4": tool(agent.Post, "c4"),
		"prompt": {Agent: "Fake", Name: "UserPromptSubmit", Kind: agent.SessionEvent, RunID: run, Cwd: top},
	}
	fake := hookserve.Agent{Name: "fake", Read: func(rd io.Reader, _ []string) (*agent.Event, error) {
		var name string
		if err := json.NewDecoder(rd).Decode(&name); err != nil {
			return nil, err
		}
		ev, ok := events[name]
		if !ok {
			return nil, errors.New("no such event")
		}
		return &ev, nil
	}}
	gated := &gatedOpen{}
	d, err := hookserve.NewDaemon(ctx, g, hookserve.Options{Open: plain, OpenHook: gated.open,
		Getenv: func(string) string { return "" }, Agents: []hookserve.Agent{fake}})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx, 0) }()
	send := func(name string, failClosed bool) hookserve.Answer {
		t.Helper()
		event, _ := json.Marshal(name)
		// A hook held until the recording ends would wait here for the
		// gate: fail rather than wait for ever.
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		ans, err := hookserve.HandOff(ctx, top, func(string) string { return "" },
			hookserve.Request{Agent: "fake", Event: event, FailClosed: failClosed})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			runtime.Goexit()
		}
		return ans
	}
	status := func(call record.CallID) record.Status {
		t.Helper()
		got, err := g.ReadRun(ctx, run, call)
		if err != nil {
			t.Fatal(err)
		}
		if c := got.Calls[call]; c != nil {
			return c.Ledger.Status
		}
		return ""
	}

	send("pre1", false)
	r.Write("a.txt", "b\n")
	release := gated.arm(nil)
	if ans := send("post1", false); ans.Stderr != "" || ans.Exit != 0 {
		t.Fatalf("post1: %+v", ans)
	}
	<-gated.entered // the recording has begun, and waits
	if got := status("c1"); got != record.StatusStarted {
		t.Fatalf("c1 once its end was answered, before the recording: %q, want started", got)
	}
	next := make(chan hookserve.Answer, 1)
	go func() { next <- send("pre2", false) }()
	time.Sleep(50 * time.Millisecond) // pre2 reaches the daemon
	release()
	<-next
	if got := status("c1"); got != record.StatusSucceeded {
		t.Fatalf("c1 after the next event: %q, want succeeded", got)
	}
	if got := status("c2"); got != record.StatusStarted {
		t.Fatalf("c2: %q, want started", got)
	}

	// A failure is said at the run's next event, and the call stays
	// started until that event closes it.
	r.Write("a.txt", "c\n")
	release = gated.arm(errors.New("the disk is gone"))
	if ans := send("post2", false); ans.Stderr != "" || ans.Exit != 0 {
		t.Fatalf("post2: %+v", ans)
	}
	release()
	ans := send("prompt", false)
	if !strings.Contains(ans.Stderr, "after its hook had answered") || !strings.Contains(ans.Stderr, "the disk is gone") {
		t.Fatalf("the event after a failed end says %q, want the failure", ans.Stderr)
	}
	if got := status("c2"); got != record.StatusUncertain {
		t.Fatalf("c2 after its end failed and the next event: %q, want uncertain", got)
	}
	if ans := send("prompt", false); strings.Contains(ans.Stderr, "the disk is gone") {
		t.Fatalf("the failure said twice: %q", ans.Stderr)
	}

	// Failing closed, the end is recorded before the answer.
	send("pre3", false)
	release = gated.arm(errors.New("the disk is gone"))
	release()
	if ans := send("post3", true); ans.Exit != 2 || !strings.Contains(ans.Stderr, "the disk is gone") {
		t.Fatalf("post3 failing closed: %+v, want exit 2 and the failure", ans)
	}

	// Close waits for an end being recorded.
	send("pre4", false)
	r.Write("a.txt", "d\n")
	release = gated.arm(nil)
	send("post4", false)
	<-gated.entered
	closed := make(chan struct{})
	go func() {
		d.Close()
		close(closed)
	}()
	time.Sleep(50 * time.Millisecond)
	release()
	<-closed
	if got := status("c4"); got != record.StatusSucceeded {
		t.Fatalf("c4 once the daemon closed: %q, want succeeded", got)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if got := userState(t, r); got != user {
		t.Errorf("user state changed:\n%s\nwant\n%s", got, user)
	}
}

// Tool uses back to back, with no pause for the idle merges: the packs
// their starts and ends write are merged after each end's answer, so a
// start (which the agent waits on) never finds them piled up to the bound
// where it would merge them itself.
func TestEndsMergePacks(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{})
	}
	g, err := open(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	top := g.WorkTree()
	const run = record.RunID("fk-merges")
	fake := hookserve.Agent{Name: "fake", Read: func(rd io.Reader, _ []string) (*agent.Event, error) {
		var e struct {
			Pre  bool
			Call record.CallID
		}
		if err := json.NewDecoder(rd).Decode(&e); err != nil {
			return nil, err
		}
		ev := agent.Event{Agent: "Fake", Name: "PostToolUse", Kind: agent.Post, RunID: run, CallID: e.Call, Tool: "Edit", Paths: []string{"a.txt"}, Cwd: top}
		if e.Pre {
			ev.Name, ev.Kind = "PreToolUse", agent.Pre
		}
		return &ev, nil
	}}
	d, err := hookserve.NewDaemon(ctx, g, hookserve.Options{Open: open, MergeIdle: time.Hour,
		Getenv: func(string) string { return "" }, Agents: []hookserve.Agent{fake}})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx, 0) }()
	const uses = 15 // 30 packs: below the bound at which a start merges them
	for i := range uses {
		for _, pre := range []bool{true, false} {
			event, _ := json.Marshal(map[string]any{"Pre": pre, "Call": record.CallID(fmt.Sprintf("c%d", i))})
			ans, err := hookserve.HandOff(ctx, top, func(string) string { return "" }, hookserve.Request{Agent: "fake", Event: event})
			if err != nil || ans.Exit != 0 || ans.Stderr != "" {
				t.Fatalf("tool use %d: %+v, %v", i, ans, err)
			}
		}
		r.Write("a.txt", fmt.Sprintf("%d\n", i))
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.pack"))
	t.Logf("%d packs left of %d written", len(packs), 2*uses)
	if len(packs) > uses/2 {
		t.Errorf("%d packs after %d tool uses (%d packs written), want them merged", len(packs), uses, 2*uses)
	}
	for i := range uses {
		call := record.CallID(fmt.Sprintf("c%d", i))
		got, err := g.ReadRun(ctx, run, call)
		if err != nil {
			t.Fatal(err)
		}
		if c := got.Calls[call]; c == nil || c.Ledger.Status != record.StatusSucceeded {
			t.Errorf("call %s: %+v, want succeeded", call, c)
		}
	}
}
