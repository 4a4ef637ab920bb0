package claudecode

import (
	"cmp"
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
	// SessionStart, UserPromptSubmit and Stop show that the session's tool
	// uses started before them are over: calls left started are closed as
	// uncertain (the user interrupted the turn, which fires no hook; the
	// agent was killed and the session resumed). SessionStart also closes
	// those of other Claude Code sessions in the work tree.
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	Stop             = "Stop"
)

// quietEvents are Claude Code events gitguard has no use for; they are
// ignored without a word.
var quietEvents = map[string]bool{
	"SubagentStart": true, "SubagentStop": true,
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

var tools = agent.Tools{Agent: Name, HookName: HookName, Files: FileTools,
	PathFields: []string{"file_path", "notebook_path"}, Shell: WorkspaceTools}

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

// Read reads one hook event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) {
	return agent.ReadEvent(Name, r, o, Event)
}

// hooks are the Claude Code events the adapter acts on.
var hooks = agent.Hooks{
	PreToolUse:         {Kind: agent.Pre},
	PostToolUse:        {Kind: agent.Post},
	PostToolUseFailure: {Kind: agent.Post},
	SessionEnd:         {Kind: agent.SessionEnd, EndLabel: "Claude Code session ended"},
	UserPromptSubmit:   {Kind: agent.SessionEvent},
	Stop:               {Kind: agent.SessionEvent},
	SessionStart:       {Kind: agent.SessionStart, CloseOthers: true},
}

// Event maps a payload to an agent.Event.
func Event(p *Payload, o agent.ReadOptions) (*agent.Event, error) {
	if p.CursorVersion != "" || p.ConversationID != "" {
		return cursorEvent(p, o)
	}
	ev := &agent.Event{Agent: Name, Name: p.HookEventName, RunID: RunID(p), Cwd: p.Cwd, MessagesRef: p.TranscriptPath}
	toolUse, err := hooks.Classify(ev, RunPrefix, quietEvents)
	if err != nil {
		return nil, err
	}
	if !toolUse {
		return ev, nil
	}
	if _, err := tools.Scope(ev, p.ToolName, p.ToolInput, o.WorkspaceTools); err != nil {
		return nil, err
	}
	if ev.Kind == agent.Ignore {
		return ev, nil
	}
	ev.SetCallID(RunPrefix, p.SessionID, p.ToolUseID)
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
		msg := cmp.Or(p.Error, p.ErrorMessage)
		if p.IsInterrupt {
			msg = strings.TrimSpace("interrupted by the user " + msg)
		}
		return agent.Failed(msg)
	}
	return agent.ResponseFinish(p.ToolResponse)
}

// cursorHooks are the Claude Code events Cursor sends that the adapter
// acts on: Cursor's Stop ends its session.
var cursorHooks = agent.Hooks{
	PreToolUse:         {Kind: agent.Pre},
	PostToolUse:        {Kind: agent.Post},
	PostToolUseFailure: {Kind: agent.Post},
	SessionEnd:         {Kind: agent.SessionEnd, EndLabel: "Cursor session ended"},
	Stop:               {Kind: agent.SessionEnd, EndLabel: "Cursor session ended"},
}

// cursorEvent maps an event Cursor sends to Claude Code's hooks to the
// run and call its own hooks record (package cursor), so that a tool use
// that reaches gitguard through both is recorded once.
func cursorEvent(p *Payload, o agent.ReadOptions) (*agent.Event, error) {
	ev := &agent.Event{Agent: cursor.Name, Name: p.HookEventName, RunID: cursor.RunID(p.ConversationID, p.SessionID, p.TranscriptPath),
		Cwd: p.Cwd, MessagesRef: p.TranscriptPath, Repeated: true}
	toolUse, err := cursorHooks.Classify(ev, "", quietEvents)
	if err != nil {
		return nil, err
	}
	if !toolUse {
		return ev, nil
	}
	return cursor.ToolEvent(ev, p.ToolName, p.ToolInput, p.ToolUseID, o.WorkspaceTools, func() gitguard.FinishOptions {
		return finish(p)
	})
}
