package claudecode

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/cursor"
	"github.com/gitguard/gitguard/record"
)

// Name is the agent's name in messages.
const Name = "Claude Code"

// RunPrefix starts the id of every Claude Code session's run.
const RunPrefix = "cc-"

// Hook event names the adapter acts on.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	SessionEnd         = "SessionEnd"
	SessionStart       = "SessionStart"
)

// quietEvents are Claude Code events gitguard has no use for; they are
// ignored without a word.
var quietEvents = map[string]bool{
	"UserPromptSubmit": true, "Stop": true, "SubagentStart": true, "SubagentStop": true,
	"Notification": true, "PreCompact": true, "PostCompact": true, "PermissionRequest": true,
}

// FileTools are Claude Code's edit tools: each names the one file it
// writes, which is all the call captures.
var FileTools = map[string]record.Idempotency{
	"Write":        record.Idempotent, // the same content again changes nothing
	"Edit":         record.Conditional,
	"MultiEdit":    record.Conditional,
	"NotebookEdit": record.Conditional,
}

// WorkspaceTools may change any file: the call captures the whole
// workspace before and after.
var WorkspaceTools = map[string]bool{"Bash": true}

// HookName is the adapter's name in `gitguard hook NAME`; it picks the
// read-only tools (agent.ReadOnlyTool).
const HookName = "claude-code"

// Payload is the part of a Claude Code hook event the adapter reads.
type Payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Error          string          `json:"error"`         // PostToolUseFailure
	ErrorMessage   string          `json:"error_message"` // PostToolUseFailure, older spelling
	IsInterrupt    bool            `json:"is_interrupt"`
	// Cursor runs Claude Code's hooks too, with these fields beside
	// Claude Code's (see package cursor).
	ConversationID string `json:"conversation_id"`
	CursorVersion  string `json:"cursor_version"`
}

// Options tune Read.
type Options struct {
	// WorkspaceTools are tools to record as whole-workspace calls even
	// where gitguard takes them to be read-only. Every tool that is neither
	// a file tool nor read-only is recorded so anyway.
	WorkspaceTools []string
}

// Read reads one hook event from r.
func Read(r io.Reader, o Options) (*agent.Event, error) {
	var p Payload
	if err := agent.ReadPayload(Name, r, &p); err != nil {
		return nil, err
	}
	return Event(&p, o)
}

// Event maps a payload to an agent.Event.
func Event(p *Payload, o Options) (*agent.Event, error) {
	if p.CursorVersion != "" || p.ConversationID != "" {
		return cursorEvent(p, o)
	}
	ev := &agent.Event{Agent: Name, Name: p.HookEventName, RunID: RunID(p), Cwd: p.Cwd, MessagesRef: p.TranscriptPath}
	switch p.HookEventName {
	case PreToolUse:
		ev.Kind = agent.Pre
	case PostToolUse, PostToolUseFailure:
		ev.Kind = agent.Post
	case SessionStart:
		ev.Kind = agent.SessionStart
		return ev, nil
	case SessionEnd:
		ev.Kind, ev.EndLabel = agent.SessionEnd, "Claude Code session ended"
		return ev, nil
	case "":
		return nil, agent.PayloadErrorf(Name, "no hook_event_name")
	default:
		if !quietEvents[p.HookEventName] {
			ev.Warning = "Claude Code event " + p.HookEventName + " is not one gitguard knows; not recorded"
		}
		return ev, nil
	}
	idem, fileTool := FileTools[p.ToolName]
	whole := WorkspaceTools[p.ToolName] || contains(o.WorkspaceTools, p.ToolName)
	if !fileTool && !whole {
		if agent.ReadOnlyTool(HookName, p.ToolName) {
			ev.Kind = agent.Ignore
			return ev, nil
		}
		if p.ToolName == "" {
			return nil, agent.PayloadErrorf(Name, "%s has no tool_name", p.HookEventName)
		}
		whole = true // an MCP tool, or one gitguard does not know: any file may change
	}
	input, err := agent.DecodeInput(Name, p.ToolInput)
	if err != nil {
		return nil, err
	}
	ev.Tool = p.ToolName
	ev.InputHash = agent.InputHash(input)
	ev.Idempotency = record.Conditional
	if fileTool {
		ev.Idempotency = idem
		path := agent.StringField(input, "file_path", "notebook_path")
		if path == "" {
			return nil, agent.PayloadErrorf(Name, "%s tool_input has no file_path", p.ToolName)
		}
		ev.Paths = []string{path}
	} else {
		ev.Whole = true
		ev.Summary = agent.ToolSummary(p.ToolName, input)
	}
	if p.ToolUseID != "" {
		ev.CallID = agent.CallID(p.ToolUseID)
	} else {
		ev.IDBase = RunPrefix + agent.ShortHash(p.SessionID+"\x00"+p.ToolName+"\x00"+ev.InputHash)
	}
	if ev.Kind == agent.Post {
		ev.Finish = finish(p)
	}
	return ev, nil
}

// RunID derives the run id of a session: "cc-" and the session id cut
// down to the run id alphabet.
func RunID(p *Payload) record.RunID { return agent.RunID(RunPrefix, p.SessionID, p.TranscriptPath) }

// finish reads how the tool use ended.
func finish(p *Payload) gitguard.FinishOptions {
	if p.HookEventName == PostToolUseFailure {
		msg := p.Error
		if msg == "" {
			msg = p.ErrorMessage
		}
		if p.IsInterrupt {
			msg = strings.TrimSpace("interrupted by the user " + msg)
		}
		if msg == "" {
			msg = "the tool failed"
		}
		return gitguard.FinishOptions{Status: record.StatusFailed, Result: agent.Summarize(msg)}
	}
	if msg, failed := agent.ToolResponseError(p.ToolResponse); failed {
		return gitguard.FinishOptions{Status: record.StatusFailed, Result: agent.Summarize(msg)}
	}
	return gitguard.FinishOptions{Status: record.StatusSucceeded}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// cursorEvent maps an event Cursor sends to Claude Code's hooks to the
// run and call its own hooks record (package cursor), so that a tool use
// that reaches gitguard through both is recorded once.
func cursorEvent(p *Payload, o Options) (*agent.Event, error) {
	ev := &agent.Event{Agent: cursor.Name, Name: p.HookEventName, RunID: cursor.RunID(p.ConversationID, p.SessionID, p.TranscriptPath),
		Cwd: p.Cwd, MessagesRef: p.TranscriptPath, Repeated: true}
	switch p.HookEventName {
	case PreToolUse:
		ev.Kind = agent.Pre
	case PostToolUse, PostToolUseFailure:
		ev.Kind = agent.Post
	case SessionEnd, "Stop":
		ev.Kind, ev.EndLabel = agent.SessionEnd, "Cursor session ended"
		return ev, nil
	case "":
		return nil, agent.PayloadErrorf(Name, "no hook_event_name")
	default:
		if !quietEvents[p.HookEventName] {
			ev.Warning = "Claude Code event " + p.HookEventName + " (from Cursor) is not one gitguard knows; not recorded"
		}
		return ev, nil
	}
	return cursor.ToolEvent(ev, p.ToolName, p.ToolInput, p.ToolUseID, o.WorkspaceTools, func() gitguard.FinishOptions {
		return finish(p)
	})
}
