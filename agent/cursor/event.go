package cursor

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/record"
)

// Name is the agent's name in messages.
const Name = "Cursor"

// HookName is the adapter's name in `gitguard hook NAME`; it picks the
// read-only tools (agent.ReadOnlyTool).
const HookName = "cursor"

// RunPrefix starts the id of every Cursor conversation's run.
const RunPrefix = "cu-"

// Hook event names the adapter acts on.
const (
	PreToolUse         = "preToolUse"
	PostToolUse        = "postToolUse"
	PostToolUseFailure = "postToolUseFailure"
	Stop               = "stop"
	SessionStart       = "sessionStart"
	SessionEnd         = "sessionEnd"
)

// quietEvents are Cursor events gitguard has no use for: the tool events
// above already cover what they report (afterFileEdit has no before event
// to pair with, beforeShellExecution no tool use id).
var quietEvents = map[string]bool{
	"beforeShellExecution": true, "afterShellExecution": true, "beforeMCPExecution": true,
	"afterMCPExecution": true, "beforeReadFile": true, "afterFileEdit": true, "beforeSubmitPrompt": true,
	"afterAgentResponse": true, "afterAgentThought": true, "subagentStart": true, "subagentStop": true,
	"preCompact": true, "beforeTabFileRead": true, "afterTabFileEdit": true,
}

// fileTools name the one file they write.
var fileTools = map[string]record.Idempotency{
	"Write": record.Idempotent, "Edit": record.Conditional, "MultiEdit": record.Conditional,
	"StrReplace": record.Conditional, "Delete": record.Idempotent, "NotebookEdit": record.Conditional,
	"edit_file": record.Conditional, "search_replace": record.Conditional, "write": record.Idempotent,
	"delete_file": record.Idempotent,
}

// shellTools may change any file.
var shellTools = map[string]bool{"Shell": true, "Bash": true, "run_terminal_cmd": true}

var tools = agent.Tools{Agent: Name, HookName: HookName, Files: fileTools,
	PathFields: []string{"file_path", "path", "target_file", "filePath", "notebook_path"}, Shell: shellTools,
	Decode: decodeInput}

// Payload is the part of a Cursor hook event the adapter reads.
type Payload struct {
	HookEventName  string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	SessionID      string          `json:"session_id"`
	GenerationID   string          `json:"generation_id"`
	CursorVersion  string          `json:"cursor_version"`
	TranscriptPath string          `json:"transcript_path"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Cwd            string          `json:"cwd"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolOutput     json.RawMessage `json:"tool_output"`
	Error          string          `json:"error"`         // postToolUseFailure
	ErrorMessage   string          `json:"error_message"` // postToolUseFailure, another spelling
	Status         string          `json:"status"`        // stop: completed, aborted, error
}

// Read reads one hook event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) {
	return agent.ReadEvent(Name, r, o, Event)
}

// RunID derives the run of a conversation: "cu-" and the conversation id
// (the session id when there is none). Package claudecode names the runs
// of Cursor's Claude-shaped events with it, so that a tool use both hooks
// report is one call.
func RunID(conversationID, sessionID, transcript string) record.RunID {
	id := conversationID
	if id == "" {
		id = sessionID
	}
	return agent.RunID(RunPrefix, id, transcript)
}

// hooks are the Cursor events the adapter acts on.
var hooks = agent.Hooks{
	PreToolUse:         {Kind: agent.Pre},
	PostToolUse:        {Kind: agent.Post},
	PostToolUseFailure: {Kind: agent.Post},
	SessionStart:       {Kind: agent.SessionStart, EndOthers: true},
	Stop:               {Kind: agent.SessionEnd, EndLabel: "Cursor agent loop ended"},
	SessionEnd:         {Kind: agent.SessionEnd, EndLabel: "Cursor session ended"},
}

// Event maps a payload to an agent.Event.
func Event(p *Payload, o agent.ReadOptions) (*agent.Event, error) {
	cwd := p.Cwd
	if cwd == "" && len(p.WorkspaceRoots) > 0 {
		cwd = p.WorkspaceRoots[0]
	}
	ev := &agent.Event{Agent: Name, Name: p.HookEventName, RunID: RunID(p.ConversationID, p.SessionID, p.TranscriptPath),
		Cwd: cwd, MessagesRef: p.TranscriptPath, Repeated: true}
	toolUse, err := hooks.Classify(ev, RunPrefix, quietEvents)
	if err != nil {
		return nil, err
	}
	if !toolUse {
		return ev, nil
	}
	return ToolEvent(ev, p.ToolName, p.ToolInput, p.ToolUseID, o.WorkspaceTools, func() gitguard.FinishOptions {
		return finish(p)
	})
}

// ToolEvent fills in ev, a Pre or Post event of a Cursor conversation, for
// one tool use: its tool, scope and call. finish says how a Post ended.
// Package claudecode uses it for Cursor's events to Claude Code's hooks.
func ToolEvent(ev *agent.Event, tool string, rawInput json.RawMessage, toolUseID string, workspaceTools []string,
	finish func() gitguard.FinishOptions) (*agent.Event, error) {
	if _, err := tools.Scope(ev, tool, rawInput, workspaceTools); err != nil {
		return nil, err
	}
	if ev.Kind == agent.Ignore {
		return ev, nil
	}
	if toolUseID == "" {
		return nil, agent.PayloadErrorf(Name, "%s has no tool_use_id", ev.Name)
	}
	ev.CallID = agent.CallID(toolUseID)
	if ev.Kind == agent.Post {
		ev.Finish = finish()
	}
	return ev, nil
}

// decodeInput reads tool_input: an object, or (as Cursor sends MCP tools'
// input) a string holding one.
func decodeInput(raw json.RawMessage) (map[string]any, error) {
	var s string
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' && json.Unmarshal(t, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return map[string]any{}, nil
		}
		raw = json.RawMessage(s)
	}
	return agent.DecodeInput(Name, raw)
}

// finish reads how the tool use ended.
func finish(p *Payload) gitguard.FinishOptions {
	if p.HookEventName == PostToolUseFailure {
		return agent.Failed(p.Error, p.ErrorMessage)
	}
	out := p.ToolOutput
	var s string
	if json.Unmarshal(out, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{") {
		out = json.RawMessage(s) // tool_output is often a JSON string holding an object
	}
	if msg, failed := agent.ToolResponseError(out); failed {
		return gitguard.FinishOptions{Status: record.StatusFailed, Result: agent.Summarize(msg)}
	}
	var resp map[string]any
	if json.Unmarshal(out, &resp) == nil {
		for _, k := range []string{"exitCode", "exit_code"} {
			if n, ok := resp[k].(float64); ok && n != 0 {
				code := int(n)
				return gitguard.FinishOptions{Status: record.StatusFailed, ExitCode: &code,
					Result: agent.Summarize(agent.StringField(resp, "stderr", "output"))}
			}
		}
	}
	return gitguard.FinishOptions{Status: record.StatusSucceeded}
}
