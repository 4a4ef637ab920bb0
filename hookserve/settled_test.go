package hookserve

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/hookwire"
	"github.com/gitguard/gitguard/record"
)

// A session's later event that comes after a tool use's end left no call
// of the run started is answered without opening the repository: there is
// nothing to close. Once another writer moved the run's ref (here, a call
// started outside the daemon and never finished), the event reads the run
// again and closes that call, as it always did.
func TestSessionEventOfSettledRun(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Commit("init")
	ctx := context.Background()
	open := func(ctx context.Context, dir string) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{Getenv: os.Getenv})
	}
	g, err := open(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	top := g.WorkTree()
	const run = record.RunID("fk-session")
	events := map[string]agent.Event{
		"pre":    {Agent: "Fake", Name: "PreToolUse", Kind: agent.Pre, RunID: run, CallID: "c1", Tool: "Edit", Paths: []string{"a.txt"}, Cwd: top},
		"post":   {Agent: "Fake", Name: "PostToolUse", Kind: agent.Post, RunID: run, CallID: "c1", Tool: "Edit", Paths: []string{"a.txt"}, Cwd: top},
		"prompt": {Agent: "Fake", Name: "UserPromptSubmit", Kind: agent.SessionEvent, RunID: run, Cwd: top},
	}
	fake := Agent{Name: "fake", Read: func(rd io.Reader, _ []string) (*agent.Event, error) {
		var name string
		if err := json.NewDecoder(rd).Decode(&name); err != nil {
			return nil, err
		}
		ev := events[name]
		return &ev, nil
	}}
	opens := 0
	s := &server{
		o: Options{Agents: []Agent{fake}, Getenv: os.Getenv, Open: open, Outcome: DefaultOutcome,
			OpenHook: func(ctx context.Context, dir string) (*gitguard.Guard, error) {
				opens++
				return open(ctx, dir)
			}},
		g: g, workTree: top, merges: newIdleTask(time.Hour, func() {}), spares: newIdleTask(time.Hour, func() {}),
		later: func(fn func()) { fn() }, // the tool use's end recorded before its answer: opens counts it
	}
	defer s.merges.stop()
	send := func(name string) hookwire.Answer {
		t.Helper()
		event, _ := json.Marshal(name)
		payload, err := json.Marshal(hookwire.Request{Agent: "fake", Event: event, Env: hookwire.EnvKey()})
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.answer(ctx, payload)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var ans hookwire.Answer
		if err := json.Unmarshal(out, &ans); err != nil {
			t.Fatal(err)
		}
		return ans
	}
	send("pre")
	r.Write("a.txt", "b\n")
	if ans := send("post"); ans.Stderr != "" || ans.Exit != 0 {
		t.Fatalf("post: %+v", ans)
	}
	if opens != 2 {
		t.Fatalf("the tool use's two events opened the repository %d times", opens)
	}
	if ans := send("prompt"); ans.Stderr != "" || ans.Exit != 0 || opens != 2 {
		t.Fatalf("prompt after a settled run: %+v, %d opens, want nothing said and no open", ans, opens)
	}

	// Another writer starts a call of the run that never ends.
	other, err := open(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.CallStart(ctx, run, gitguard.CallOptions{CallID: "c2", Tool: "Edit", Paths: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	ans := send("prompt")
	if opens != 3 || !strings.Contains(ans.Stderr, "call c2 never got its after event") {
		t.Fatalf("prompt after another writer: %+v, %d opens, want the run read and c2 closed", ans, opens)
	}
	got, err := g.ReadRun(ctx, run, "c2")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Calls["c2"]; c == nil || c.Ledger.Status != record.StatusUncertain {
		t.Fatalf("c2 after the prompt: %+v, want uncertain", c)
	}
}
