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

// fakeEvent is an event of the fake agent the tests' daemons record.
type fakeEvent struct {
	Pre, Prompt bool // a tool use's start, a later prompt; else a tool use's end
	Call        record.CallID
}

// fakeDaemon is a watch daemon serving a throwaway repository (a.txt
// committed) in this process, recording the fake agent's events for run.
type fakeDaemon struct {
	r      *gittest.Repo
	g      *gitguard.Guard
	d      *hookserve.Daemon
	top    string
	run    record.RunID
	served chan error
}

// serveFake starts a fakeDaemon; tune may change its options (Open,
// OpenHook, Agents and Getenv are set). Close it with close.
func serveFake(t *testing.T, run record.RunID, tune func(*hookserve.Options)) *fakeDaemon {
	t.Helper()
	f := &fakeDaemon{r: gittest.New(t), run: run, served: make(chan error, 1)}
	f.r.Write("a.txt", "a\n")
	f.r.Commit("init")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	open := func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{})
	}
	var err error
	if f.g, err = open(ctx, f.r.Dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.g.Close() })
	f.top = f.g.WorkTree()
	fake := hookserve.Agent{Name: "fake", Read: func(rd io.Reader, _ []string) (*agent.Event, error) {
		var e fakeEvent
		if err := json.NewDecoder(rd).Decode(&e); err != nil {
			return nil, err
		}
		ev := &agent.Event{Agent: "Fake", Name: "PostToolUse", Kind: agent.Post, RunID: run, CallID: e.Call, Tool: "Edit",
			Paths: []string{"a.txt"}, Cwd: f.top}
		switch {
		case e.Pre:
			ev.Name, ev.Kind = "PreToolUse", agent.Pre
		case e.Prompt:
			ev = &agent.Event{Agent: "Fake", Name: "UserPromptSubmit", Kind: agent.SessionEvent, RunID: run, Cwd: f.top}
		}
		return ev, nil
	}}
	o := hookserve.Options{Open: open, Getenv: func(string) string { return "" }, Agents: []hookserve.Agent{fake}}
	if tune != nil {
		tune(&o)
	}
	if f.d, err = hookserve.NewDaemon(ctx, f.g, o); err != nil {
		t.Fatal(err)
	}
	go func() { f.served <- f.d.Serve(ctx, 0) }()
	return f
}

// send hands ev to the daemon as a hook does. A hook held until a
// recording ends fails the test after 20 s rather than wait for ever.
func (f *fakeDaemon) send(t *testing.T, ev fakeEvent, failClosed bool) hookserve.Answer {
	t.Helper()
	event, _ := json.Marshal(ev)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ans, err := hookserve.HandOff(ctx, f.top, func(string) string { return "" },
		hookserve.Request{Agent: "fake", Event: event, FailClosed: failClosed})
	if err != nil {
		t.Errorf("%+v: %v", ev, err)
		runtime.Goexit()
	}
	return ans
}

// status is the status the run's records give call ("" for none).
func (f *fakeDaemon) status(t *testing.T, call record.CallID) record.Status {
	t.Helper()
	got, err := f.g.ReadRun(context.Background(), f.run, call)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Calls[call]; c != nil {
		return c.Ledger.Status
	}
	return ""
}

// close closes the daemon and checks that Serve ended well.
func (f *fakeDaemon) close(t *testing.T) {
	t.Helper()
	if err := f.d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-f.served; err != nil {
		t.Fatal(err)
	}
}

// A tool use's end is answered before it is recorded: its hook returns
// while the recording waits, and the run's ref still names the call
// started. Every later event waits for that recording, and so does Close.
// A failure to record it is said at the run's next event; failing closed,
// the end is recorded before the answer, which carries the failure.
// (gittest.New checks git fsck at the end.)
func TestToolUseEndAnsweredFirst(t *testing.T) {
	gated := &gatedOpen{}
	f := serveFake(t, "fk-later", func(o *hookserve.Options) { o.OpenHook = gated.open })
	user := userState(t, f.r)
	pre := func(call record.CallID) fakeEvent { return fakeEvent{Pre: true, Call: call} }
	post := func(call record.CallID) fakeEvent { return fakeEvent{Call: call} }
	prompt := fakeEvent{Prompt: true}

	f.send(t, pre("c1"), false)
	f.r.Write("a.txt", "b\n")
	release := gated.arm(nil)
	if ans := f.send(t, post("c1"), false); ans.Stderr != "" || ans.Exit != 0 {
		t.Fatalf("c1's end: %+v", ans)
	}
	<-gated.entered // the recording has begun, and waits
	if got := f.status(t, "c1"); got != record.StatusStarted {
		t.Fatalf("c1 once its end was answered, before the recording: %q, want started", got)
	}
	next := make(chan hookserve.Answer, 1)
	go func() { next <- f.send(t, pre("c2"), false) }()
	time.Sleep(50 * time.Millisecond) // c2's start reaches the daemon
	release()
	<-next
	if got := f.status(t, "c1"); got != record.StatusSucceeded {
		t.Fatalf("c1 after the next event: %q, want succeeded", got)
	}
	if got := f.status(t, "c2"); got != record.StatusStarted {
		t.Fatalf("c2: %q, want started", got)
	}

	// A failure is said at the run's next event, and the call stays
	// started until that event closes it.
	f.r.Write("a.txt", "c\n")
	release = gated.arm(errors.New("the disk is gone"))
	if ans := f.send(t, post("c2"), false); ans.Stderr != "" || ans.Exit != 0 {
		t.Fatalf("c2's end: %+v", ans)
	}
	release()
	ans := f.send(t, prompt, false)
	if !strings.Contains(ans.Stderr, "after its hook had answered") || !strings.Contains(ans.Stderr, "the disk is gone") {
		t.Fatalf("the event after a failed end says %q, want the failure", ans.Stderr)
	}
	if got := f.status(t, "c2"); got != record.StatusUncertain {
		t.Fatalf("c2 after its end failed and the next event: %q, want uncertain", got)
	}
	if ans := f.send(t, prompt, false); strings.Contains(ans.Stderr, "the disk is gone") {
		t.Fatalf("the failure said twice: %q", ans.Stderr)
	}

	// Failing closed, the end is recorded before the answer.
	f.send(t, pre("c3"), false)
	release = gated.arm(errors.New("the disk is gone"))
	release()
	if ans := f.send(t, post("c3"), true); ans.Exit != 2 || !strings.Contains(ans.Stderr, "the disk is gone") {
		t.Fatalf("c3's end failing closed: %+v, want exit 2 and the failure", ans)
	}

	// Close waits for an end being recorded.
	f.send(t, pre("c4"), false)
	f.r.Write("a.txt", "d\n")
	release = gated.arm(nil)
	f.send(t, post("c4"), false)
	<-gated.entered
	closed := make(chan error, 1)
	go func() { closed <- f.d.Close() }()
	time.Sleep(50 * time.Millisecond)
	release()
	if err := errors.Join(<-closed, <-f.served); err != nil {
		t.Fatal(err)
	}
	if got := f.status(t, "c4"); got != record.StatusSucceeded {
		t.Fatalf("c4 once the daemon closed: %q, want succeeded", got)
	}
	if got := userState(t, f.r); got != user {
		t.Errorf("user state changed:\n%s\nwant\n%s", got, user)
	}
}

// Tool uses back to back, with no pause for the idle merges: the packs
// their starts and ends write are merged after each end's answer, so a
// start (which the agent waits on) never finds them piled up to the bound
// where it would merge them itself.
func TestEndsMergePacks(t *testing.T) {
	f := serveFake(t, "fk-merges", func(o *hookserve.Options) { o.MergeIdle = time.Hour })
	const uses = 15 // 30 packs: below the bound at which a start merges them
	for i := range uses {
		call := record.CallID(fmt.Sprintf("c%d", i))
		for _, ev := range []fakeEvent{{Pre: true, Call: call}, {Call: call}} {
			if ans := f.send(t, ev, false); ans.Exit != 0 || ans.Stderr != "" {
				t.Fatalf("tool use %d: %+v", i, ans)
			}
		}
		f.r.Write("a.txt", fmt.Sprintf("%d\n", i))
	}
	f.close(t)
	packs, _ := filepath.Glob(filepath.Join(f.r.Dir, ".git", "objects", "pack", "*.pack"))
	t.Logf("%d packs left of %d written", len(packs), 2*uses)
	if len(packs) > uses/2 {
		t.Errorf("%d packs after %d tool uses (%d packs written), want them merged", len(packs), uses, 2*uses)
	}
	for i := range uses {
		call := record.CallID(fmt.Sprintf("c%d", i))
		if got := f.status(t, call); got != record.StatusSucceeded {
			t.Errorf("call %s: %q, want succeeded", call, got)
		}
	}
}
