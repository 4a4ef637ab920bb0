package agent_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/record"
)

func TestToolsScope(t *testing.T) {
	tools := agent.Tools{Agent: "Claude Code", HookName: "claude-code",
		Files:      map[string]record.Idempotency{"Write": record.Idempotent},
		PathFields: []string{"file_path", "path"}, Shell: map[string]bool{"Bash": true}}
	for _, tc := range []struct {
		name, tool, input string
		workspace         []string
		kind              agent.Kind
		paths             []string
		whole             bool
		idem              record.Idempotency
		err               bool
	}{
		{name: "file tool", tool: "Write", input: `{"path":"a.txt"}`, kind: agent.Pre, paths: []string{"a.txt"}, idem: record.Idempotent},
		{name: "first path field wins", tool: "Write", input: `{"file_path":"b","path":"a"}`, kind: agent.Pre, paths: []string{"b"}, idem: record.Idempotent},
		{name: "file tool naming no file", tool: "Write", input: `{"content":"x"}`, err: true},
		{name: "shell", tool: "Bash", input: `{"command":"make"}`, kind: agent.Pre, whole: true, idem: record.Conditional},
		{name: "read-only", tool: "Read", input: `{"file_path":"a"}`, kind: agent.Ignore},
		{name: "read-only named a workspace tool", tool: "Read", input: `{}`, workspace: []string{"Read"}, kind: agent.Pre, whole: true, idem: record.Conditional},
		{name: "unknown tool", tool: "mcp__fs__write_file", input: `{"path":"a"}`, kind: agent.Pre, whole: true, idem: record.Conditional},
		{name: "no tool", tool: "", input: `{}`, err: true},
		{name: "bad input", tool: "Bash", input: `[1]`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := &agent.Event{Kind: agent.Pre, Agent: "Claude Code", Name: "PreToolUse"}
			_, err := tools.Scope(ev, tc.tool, json.RawMessage(tc.input), tc.workspace)
			if tc.err {
				if !errors.Is(err, agent.ErrPayload) {
					t.Fatalf("err = %v, want a payload error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != tc.kind || ev.Whole != tc.whole || ev.Idempotency != tc.idem || len(ev.Paths) != len(tc.paths) {
				t.Fatalf("got kind %v whole %v idempotency %q paths %q; want %v %v %q %q", ev.Kind, ev.Whole, ev.Idempotency, ev.Paths, tc.kind, tc.whole, tc.idem, tc.paths)
			}
			for i := range tc.paths {
				if ev.Paths[i] != tc.paths[i] {
					t.Fatalf("paths %q, want %q", ev.Paths, tc.paths)
				}
			}
			if ev.Kind != agent.Ignore && (ev.Tool != tc.tool || ev.InputHash == "") {
				t.Fatalf("tool %q input hash %q", ev.Tool, ev.InputHash)
			}
		})
	}
}

func TestSetCallID(t *testing.T) {
	ev := &agent.Event{Tool: "Bash", InputHash: "h"}
	ev.SetCallID("cc-", "s", "", "toolu_1")
	if ev.CallID != agent.CallID("toolu_1") || ev.IDBase != "" {
		t.Fatalf("call %q base %q", ev.CallID, ev.IDBase)
	}
	a, b := &agent.Event{Tool: "Bash", InputHash: "h"}, &agent.Event{Tool: "Bash", InputHash: "h2"}
	a.SetCallID("cc-", "s")
	b.SetCallID("cc-", "s")
	if a.CallID != "" || a.IDBase == "" || a.IDBase[:3] != "cc-" || a.IDBase == b.IDBase {
		t.Fatalf("derived bases %q and %q: want distinct, after the prefix", a.IDBase, b.IDBase)
	}
}

func TestUnhandled(t *testing.T) {
	if _, err := agent.Unhandled(&agent.Event{Agent: "Codex"}, nil); !errors.Is(err, agent.ErrPayload) {
		t.Fatalf("no event name: err = %v", err)
	}
	ev, err := agent.Unhandled(&agent.Event{Agent: "Codex", Name: "Later"}, nil)
	if err != nil || ev.Warning != "Codex event Later is not one gitguard knows; not recorded" {
		t.Fatalf("unknown event: %v, warning %q", err, ev.Warning)
	}
	ev, _ = agent.Unhandled(&agent.Event{Agent: "Codex", Name: "Quiet"}, map[string]bool{"Quiet": true})
	if ev.Warning != "" {
		t.Fatalf("a quiet event warned: %q", ev.Warning)
	}
}

func TestHooksClassify(t *testing.T) {
	hooks := agent.Hooks{
		"Pre":   {Kind: agent.Pre},
		"Start": {Kind: agent.SessionStart, EndOthers: true, CloseOthers: true},
		"End":   {Kind: agent.SessionEnd, EndLabel: "ended"},
		"Turn":  {Kind: agent.SessionEnd, EndLabel: "turn ended", TurnEnd: true},
	}
	classify := func(name string) (*agent.Event, bool, error) {
		ev := &agent.Event{Agent: "Codex", Name: name}
		tool, err := hooks.Classify(ev, "cx-", map[string]bool{"Quiet": true})
		return ev, tool, err
	}
	if ev, tool, err := classify("Pre"); err != nil || !tool || ev.Kind != agent.Pre {
		t.Fatalf("Pre: %v %v %v", ev.Kind, tool, err)
	}
	if ev, tool, err := classify("Start"); err != nil || tool || ev.Kind != agent.SessionStart || ev.EndOthers != "cx-" || ev.CloseOthers != "cx-" {
		t.Fatalf("Start: %+v %v %v", ev, tool, err)
	}
	if ev, tool, err := classify("End"); err != nil || tool || ev.Kind != agent.SessionEnd || ev.EndLabel != "ended" || ev.EndOthers != "" || ev.TurnEnd {
		t.Fatalf("End: %+v %v %v", ev, tool, err)
	}
	if ev, _, err := classify("Turn"); err != nil || ev.Kind != agent.SessionEnd || !ev.TurnEnd {
		t.Fatalf("Turn: %+v %v", ev, err)
	}
	if ev, tool, err := classify("Later"); err != nil || tool || ev.Kind != agent.Ignore || ev.Warning == "" {
		t.Fatalf("an unknown event: %+v %v %v", ev, tool, err)
	}
	if ev, _, err := classify("Quiet"); err != nil || ev.Warning != "" {
		t.Fatalf("a quiet event: %q %v", ev.Warning, err)
	}
	if _, _, err := classify(""); !errors.Is(err, agent.ErrPayload) {
		t.Fatalf("no event name: %v", err)
	}
}
