package qwen

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/gemini"
	"github.com/gitguard/gitguard/record"
)

// Name is the agent's name in messages.
const Name = "Qwen Code"

// HookName is the adapter's name in `gitguard hook NAME`; it picks the
// read-only tools (agent.ReadOnlyTool).
const HookName = "qwen"

// RunPrefix starts the id of every Qwen Code session's run.
const RunPrefix = "qw-"

// Hook event names the adapter acts on.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	Stop               = "Stop"
)

// quietEvents are Qwen Code events gitguard has no use for.
var quietEvents = map[string]bool{
	"UserPromptSubmit": true, "StopFailure": true, "SubagentStart": true, "SubagentStop": true,
	"Notification": true, "PreCompact": true, "PostCompact": true, "PermissionRequest": true,
	"PermissionDenied": true, "PostToolBatch": true, "TodoCreated": true, "TodoCompleted": true,
	"SessionDelete": true, "InstructionsLoaded": true, "UserPromptExpansion": true,
}

// FileTools name the one file they write in tool_input.file_path.
var FileTools = map[string]record.Idempotency{
	"write_file": record.Idempotent,
	"edit":       record.Conditional,
}

// ShellTool may change any file.
const ShellTool = "run_shell_command"

var tools = agent.Tools{Agent: Name, HookName: HookName, Files: FileTools,
	PathFields: []string{"file_path", "absolute_path", "path"}, Shell: map[string]bool{ShellTool: true}}

// Payload is the part of a Qwen Code hook event the adapter reads.
type Payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`  // made up per event pair
	ToolCallID     string          `json:"tool_call_id"` // the model's id of the call
	ToolResponse   json.RawMessage `json:"tool_response"`
	Error          string          `json:"error"` // PostToolUseFailure
	IsInterrupt    bool            `json:"is_interrupt"`
}

// Read reads one hook event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) {
	return agent.ReadEvent(Name, r, o, Event)
}

// RunID derives the run id of a session: "qw-" and the session id.
func RunID(p *Payload) record.RunID { return agent.RunID(RunPrefix, p.SessionID, p.TranscriptPath) }

// hooks are the Qwen Code events the adapter acts on.
var hooks = agent.Hooks{
	PreToolUse:         {Kind: agent.Pre},
	PostToolUse:        {Kind: agent.Post},
	PostToolUseFailure: {Kind: agent.Post},
	SessionStart:       {Kind: agent.SessionStart, EndOthers: true},
	Stop:               {Kind: agent.SessionEnd, EndLabel: "Qwen Code turn ended", TurnEnd: true},
	SessionEnd:         {Kind: agent.SessionEnd, EndLabel: "Qwen Code session ended"},
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
	if _, err := tools.Scope(ev, p.ToolName, p.ToolInput, o.WorkspaceTools); err != nil {
		return nil, err
	}
	if ev.Kind == agent.Ignore {
		return ev, nil
	}
	ev.SetCallID(RunPrefix, p.SessionID, p.ToolCallID, p.ToolUseID)
	if ev.Kind == agent.Post {
		ev.Finish = finish(p, p.ToolName == ShellTool)
	}
	return ev, nil
}

// finish reads how the tool use ended: PostToolUseFailure, an error in
// tool_response, or a shell command's exit code or signal in its output
// (as Gemini CLI's, "Exit Code: N" and "Signal: S", with "(none)" for
// none).
func finish(p *Payload, shell bool) gitguard.FinishOptions {
	if p.HookEventName == PostToolUseFailure {
		msg := p.Error
		if p.IsInterrupt {
			msg = strings.TrimSpace("interrupted by the user " + msg)
		}
		return agent.Failed(msg)
	}
	if f := agent.ResponseFinish(p.ToolResponse); f.Status == record.StatusFailed {
		return f
	}
	if shell {
		code, signal := gemini.ShellExit(p.ToolResponse)
		if signal == "(none)" {
			signal = ""
		}
		switch {
		case code != nil:
			return gitguard.FinishOptions{Status: record.StatusFailed, ExitCode: code, Result: "exit code " + strconv.Itoa(*code)}
		case signal != "":
			return gitguard.FinishOptions{Status: record.StatusFailed, Result: "terminated by signal " + signal}
		}
	}
	return gitguard.FinishOptions{Status: record.StatusSucceeded}
}
