package codex

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/record"
)

// Name is the agent's name in messages.
const Name = "Codex"

// RunPrefix starts the id of every Codex session's run.
const RunPrefix = "cx-"

// Hook event names the adapter acts on.
const (
	PreToolUse   = "PreToolUse"
	PostToolUse  = "PostToolUse"
	SessionStart = "SessionStart"
	Stop         = "Stop"
	SessionEnd   = "SessionEnd"
)

// HookName is the adapter's name in `gitguard hook NAME`; it picks the
// read-only tools (agent.ReadOnlyTool).
const HookName = "codex"

// Tool names.
const (
	Bash       = "Bash"
	ApplyPatch = "apply_patch"
)

// quietEvents are Codex events gitguard has no use for.
var quietEvents = map[string]bool{
	"UserPromptSubmit": true, "PermissionRequest": true, "SubagentStart": true, "SubagentStop": true,
	"PreCompact": true, "PostCompact": true, "Notification": true,
}

// Payload is the part of a Codex hook event the adapter reads. Codex
// sends Claude Code's shape.
type Payload struct {
	SessionID      string          `json:"session_id"`
	TurnID         string          `json:"turn_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Source         string          `json:"source"` // SessionStart: startup, resume, clear
}

// Read reads one hook event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) {
	return agent.ReadEvent(Name, r, o, Event)
}

// RunID derives the run id of a session: "cx-" and the session id.
func RunID(p *Payload) record.RunID { return agent.RunID(RunPrefix, p.SessionID, p.TranscriptPath) }

// hooks are the Codex events the adapter acts on.
var hooks = agent.Hooks{
	PreToolUse:   {Kind: agent.Pre},
	PostToolUse:  {Kind: agent.Post},
	SessionStart: {Kind: agent.SessionStart, EndOthers: true},
	Stop:         {Kind: agent.SessionEnd, EndLabel: "Codex turn ended", TurnEnd: true},
	SessionEnd:   {Kind: agent.SessionEnd, EndLabel: "Codex session ended"},
}

// Event maps a payload to an agent.Event.
func Event(p *Payload, o agent.ReadOptions) (*agent.Event, error) {
	ev := &agent.Event{Agent: Name, Name: p.HookEventName, RunID: RunID(p), Cwd: p.Cwd, MessagesRef: p.TranscriptPath}
	toolUse, err := hooks.Classify(ev, RunPrefix, quietEvents)
	if err != nil {
		return nil, err
	}
	if !toolUse {
		return ev, nil
	}
	input, err := agent.DecodeInput(Name, p.ToolInput)
	if err != nil {
		return nil, err
	}
	ev.Tool = p.ToolName
	ev.InputHash = agent.InputHash(input)
	ev.Idempotency = record.Conditional
	command := commandOf(input)
	switch {
	case p.ToolName == ApplyPatch:
		if paths, ok := PatchPaths(command); ok {
			ev.Paths = paths
			ev.Summary = agent.Summarize("apply_patch " + strings.Join(paths, " "))
		} else {
			// Not a patch gitguard can read: the whole workspace is the
			// safe scope.
			ev.Whole, ev.Summary = true, "apply_patch"
		}
	case p.ToolName == Bash || slices.Contains(o.WorkspaceTools, p.ToolName):
		ev.Whole = true
		ev.Summary = agent.Summarize(command)
	case agent.ReadOnlyTool(HookName, p.ToolName):
		ev.Kind = agent.Ignore
		return ev, nil
	case p.ToolName == "":
		return nil, agent.PayloadErrorf(Name, "%s has no tool_name", p.HookEventName)
	default:
		// An MCP tool, or one gitguard does not know: any file may change.
		ev.Whole = true
		ev.Summary = agent.ToolSummary(p.ToolName, input)
	}
	ev.SetCallID(RunPrefix, p.SessionID, p.ToolUseID)
	if ev.Kind == agent.Post {
		ev.Finish = finish(p.ToolResponse)
	}
	return ev, nil
}

// commandOf reads tool_input.command: a string, or an argument list.
func commandOf(input map[string]any) string {
	switch c := input["command"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, a := range c {
			if s, ok := a.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " ")
	}
	return agent.StringField(input, "patch", "input", "cmd")
}

// finish reads how the tool use ended from tool_response: an error
// report, or a non-zero exit code.
func finish(raw json.RawMessage) gitguard.FinishOptions {
	if msg, failed := agent.ToolResponseError(raw); failed {
		return agent.Failed(msg)
	}
	// apply_patch (0.171): "Exit code: N\nWall time: ...\nOutput:\n...".
	var text string
	if json.Unmarshal(raw, &text) == nil {
		first, rest, _ := strings.Cut(text, "\n")
		if n, ok := strings.CutPrefix(first, "Exit code: "); ok {
			if code, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && code != 0 {
				_, out, _ := strings.Cut(rest, "Output:\n")
				return gitguard.FinishOptions{Status: record.StatusFailed, ExitCode: &code, Result: agent.Summarize(out)}
			}
		}
		return gitguard.FinishOptions{Status: record.StatusSucceeded}
	}
	var resp map[string]any
	if json.Unmarshal(raw, &resp) == nil {
		for _, k := range []string{"exit_code", "exitCode"} {
			if n, ok := resp[k].(float64); ok && n != 0 {
				code := int(n)
				return gitguard.FinishOptions{Status: record.StatusFailed, ExitCode: &code,
					Result: agent.Summarize(agent.StringField(resp, "stderr", "output", "message"))}
			}
		}
	}
	return gitguard.FinishOptions{Status: record.StatusSucceeded}
}
