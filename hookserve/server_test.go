package hookserve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/internal/hookwire"
)

// TestServerRefuses: what the daemon leaves to the hook is refused before
// anything is opened or recorded: another environment, an unknown agent,
// an event that records nothing, one with a warning or unreadable, no
// absolute folder, another work tree. A session's start and end are
// recorded (in their work tree only).
func TestServerRefuses(t *testing.T) {
	t.Parallel()
	top := t.TempDir() // no repository: no event is for it
	events := map[string]*agent.Event{
		"pre":     {Kind: agent.Pre, Cwd: top},
		"start":   {Kind: agent.SessionStart, Cwd: top},
		"end":     {Kind: agent.SessionEnd, Cwd: top},
		"ignore":  {Kind: agent.Ignore, Cwd: top},
		"warning": {Kind: agent.Pre, Cwd: top, Warning: "unknown tool"},
		"rel":     {Kind: agent.Post, Cwd: "sub"},
	}
	fake := Agent{Name: "fake", Read: func(r io.Reader, _ []string) (*agent.Event, error) {
		var name string
		if err := json.NewDecoder(r).Decode(&name); err != nil {
			return nil, err
		}
		if ev := events[name]; ev != nil {
			return ev, nil
		}
		return nil, errors.New("unreadable")
	}}
	opened := false
	s := &server{
		o: Options{Agents: []Agent{fake}, Getenv: func(string) string { return "" },
			Open: func(context.Context, string) (*gitguard.Guard, error) {
				opened = true
				return nil, errors.New("not here")
			}},
		workTree: top,
		merges:   newIdleTask(time.Hour, func() {}),
		spares:   newIdleTask(time.Hour, func() {}),
	}
	s.o.OpenHook = s.o.Open
	defer s.merges.stop()
	for _, c := range []struct {
		name, agent, event, env, dir, says string
	}{
		{"environment", "fake", "pre", "another", "", "environment differs"},
		{"agent", "nobody", "pre", "", "", `no agent "nobody"`},
		{"ignored", "fake", "ignore", "", "", "not an event the daemon records"},
		{"warning", "fake", "warning", "", "", "not an event the daemon records"},
		{"unreadable", "fake", "garbage", "", "", "not an event the daemon records"},
		{"session start elsewhere", "fake", "start", "", filepath.Join(top, "elsewhere"), "another work tree"},
		{"session end elsewhere", "fake", "end", "", filepath.Join(top, "elsewhere"), "another work tree"},
		{"relative", "fake", "rel", "", "", "no absolute folder"},
		{"other work tree", "fake", "pre", "", filepath.Join(top, "elsewhere"), "another work tree"},
	} {
		env := hookwire.EnvKey()
		if c.env != "" {
			env = c.env
		}
		event, _ := json.Marshal(c.event) // the fake reads a JSON string
		payload, err := json.Marshal(hookwire.Request{Agent: c.agent, Event: event, Dir: c.dir, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.answer(context.Background(), payload)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: answered %s, %v; want a refusal saying %q", c.name, out, err, c.says)
		}
	}
	if opened {
		t.Error("a refused event opened the repository")
	}
}

// TestDefaultOutcome: warnings come first, one a line; a failure is a
// warning, or, failing closed, blocks the tool use with exit 2.
func TestDefaultOutcome(t *testing.T) {
	t.Parallel()
	res := agent.Result{Warnings: []string{"w1", "w2"}}
	boom := errors.New("boom")
	for _, c := range []struct {
		name       string
		failClosed bool
		err        error
		want       Answer
	}{
		{"ok", false, nil, Answer{Stderr: "gitguard: warning: w1\ngitguard: warning: w2\n"}},
		{"fail open", false, boom, Answer{Stderr: "gitguard: warning: w1\ngitguard: warning: w2\n" +
			"gitguard: warning: boom; this tool use is not protected by gitguard\n"}},
		{"fail closed", true, boom, Answer{Exit: 2, Stderr: "gitguard: warning: w1\ngitguard: warning: w2\n" +
			"gitguard: boom; the tool use is blocked because gitguard fails closed\n"}},
	} {
		if got := DefaultOutcome("fake", c.failClosed, res, c.err); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestOptionsValidate: Open is required, MergeIdle not negative.
func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	open := func(context.Context, string) (*gitguard.Guard, error) { return nil, nil }
	if err := (&Options{}).Validate(); err == nil {
		t.Error("Options without Open validated")
	}
	if err := (&Options{Open: open, MergeIdle: -time.Second}).Validate(); err == nil {
		t.Error("a negative MergeIdle validated")
	}
	if err := (&Options{Open: open}).Validate(); err != nil {
		t.Errorf("Options with Open: %v", err)
	}
}
