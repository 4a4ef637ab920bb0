package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// Tools says how an agent's tools change files: what the adapters share
// in turning one tool use into a call.
type Tools struct {
	Agent    string // the agent's name in messages
	HookName string // the adapter's name in `gitguard hook NAME`; picks the read-only tools
	// Files are the tools that write the one file their input names, in
	// the first of PathFields present.
	Files      map[string]record.Idempotency
	PathFields []string
	// Shell are the tools that may change any file.
	Shell map[string]bool
	// Decode reads a tool's input; nil is DecodeInput.
	Decode func(raw json.RawMessage) (map[string]any, error)
}

// Scope fills in ev, a Pre or Post event, for one use of tool with the
// input raw: the tool, the input's hash, the idempotency and what the use
// may write. A read-only tool that workspaceTools does not name makes ev
// an Ignore event. Every other tool, an MCP server's or one a newer agent
// adds, may change any file: its scope is the whole workspace. The input
// is returned for what the adapter reads of it beyond that.
func (t Tools) Scope(ev *Event, tool string, raw json.RawMessage, workspaceTools []string) (map[string]any, error) {
	idem, fileTool := t.Files[tool]
	if !fileTool && !t.Shell[tool] && !slices.Contains(workspaceTools, tool) {
		if ReadOnlyTool(t.HookName, tool) {
			ev.Kind = Ignore
			return nil, nil
		}
		if tool == "" {
			return nil, PayloadErrorf(t.Agent, "%s has no tool_name", ev.Name)
		}
	}
	var input map[string]any
	var err error
	if t.Decode != nil {
		input, err = t.Decode(raw)
	} else {
		input, err = DecodeInput(t.Agent, raw)
	}
	if err != nil {
		return nil, err
	}
	ev.Tool = tool
	ev.InputHash = InputHash(input)
	ev.Idempotency = record.Conditional
	if !fileTool {
		ev.Whole = true
		ev.Summary = ToolSummary(tool, input)
		return input, nil
	}
	ev.Idempotency = idem
	path := StringField(input, t.PathFields...)
	if path == "" {
		return nil, PayloadErrorf(t.Agent, "%s tool_input names no file (%s)", tool, strings.Join(t.PathFields, ", "))
	}
	ev.Paths = []string{path}
	return input, nil
}

// SetCallID gives ev the first of ids the agent sent, mapped by CallID;
// when it sent none, the base of a call id derived from the session, the
// tool and its input, after prefix (set Tool and InputHash first).
func (ev *Event) SetCallID(prefix, session string, ids ...string) {
	for _, id := range ids {
		if id != "" {
			ev.CallID = CallID(id)
			return
		}
	}
	ev.IDBase = prefix + ShortHash(session+"\x00"+ev.Tool+"\x00"+ev.InputHash)
}

// Failed is how a tool use ended that the agent reports as failed: with
// msg, the first of msgs that is not empty, or "the tool failed".
func Failed(msgs ...string) gitguard.FinishOptions {
	msg := "the tool failed"
	for _, m := range msgs {
		if m != "" {
			msg = m
			break
		}
	}
	return gitguard.FinishOptions{Status: record.StatusFailed, Result: Summarize(msg)}
}

// ResponseFinish is how a tool use ended by its response alone: failed
// when the response reports an error (ToolResponseError), else succeeded.
func ResponseFinish(raw json.RawMessage) gitguard.FinishOptions {
	if msg, failed := ToolResponseError(raw); failed {
		return Failed(msg)
	}
	return gitguard.FinishOptions{Status: record.StatusSucceeded}
}

// Unhandled is ev, an event the adapter takes no action on, as it is
// returned: an error when the agent named no event, and a warning unless
// quiet lists the event as one gitguard has no use for.
func Unhandled(ev *Event, quiet map[string]bool) (*Event, error) {
	if ev.Name == "" {
		return nil, PayloadErrorf(ev.Agent, "no hook_event_name")
	}
	if !quiet[ev.Name] {
		ev.Warning = ev.Agent + " event " + ev.Name + " is not one gitguard knows; not recorded"
	}
	return ev, nil
}

// Hook is what one of an agent's hook events asks of gitguard.
type Hook struct {
	Kind Kind
	// EndLabel labels the last checkpoint of the run a SessionEnd
	// finishes.
	EndLabel string
	// TurnEnd: the SessionEnd is the end of one turn of a session that
	// goes on (Event.TurnEnd).
	TurnEnd bool
	// EndOthers and CloseOthers: a SessionStart ends the agent's other
	// session's run left active, or closes the calls its other sessions
	// left started (Event.EndOthers, Event.CloseOthers).
	EndOthers, CloseOthers bool
}

// Hooks names an agent's hook events: what each asks of gitguard.
type Hooks map[string]Hook

// Classify sets what ev asks from its event name: its kind and, for a
// session's start or end, what that does to other runs (those whose ids
// start with prefix, the agent's) and the label of the run's end. An event
// hs does not name is Unhandled (quiet lists those said nothing of). It
// reports whether ev is a tool use's event, whose tool the adapter reads
// next.
func (hs Hooks) Classify(ev *Event, prefix string, quiet map[string]bool) (toolUse bool, err error) {
	h, ok := hs[ev.Name]
	if !ok {
		_, err := Unhandled(ev, quiet)
		return false, err
	}
	ev.Kind, ev.EndLabel, ev.TurnEnd = h.Kind, h.EndLabel, h.TurnEnd
	if h.EndOthers {
		ev.EndOthers = prefix
	}
	if h.CloseOthers {
		ev.CloseOthers = prefix
	}
	return h.Kind == Pre || h.Kind == Post, nil
}
