package gemini

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/record"
)

// Name is the agent's name in messages.
const Name = "Gemini CLI"

// RunPrefix starts the id of every Gemini CLI session's run.
const RunPrefix = "gm-"

// Hook event names the adapter acts on.
const (
	BeforeTool   = "BeforeTool"
	AfterTool    = "AfterTool"
	SessionStart = "SessionStart"
	SessionEnd   = "SessionEnd"
)

// quietEvents are Gemini CLI events gitguard has no use for.
var quietEvents = map[string]bool{
	"BeforeAgent": true, "AfterAgent": true, "BeforeModel": true, "AfterModel": true,
	"BeforeToolSelection": true, "Notification": true, "PreCompress": true,
}

// FileTools name the one file they write.
var FileTools = map[string]record.Idempotency{
	"write_file": record.Idempotent,
	"replace":    record.Conditional,
}

// ShellTool may change any file.
const ShellTool = "run_shell_command"

var tools = agent.Tools{Agent: Name, HookName: HookName, Files: FileTools,
	PathFields: []string{"file_path", "absolute_path", "path"}, Shell: map[string]bool{ShellTool: true}}

// HookName is the adapter's name in `gitguard hook NAME`; it picks the
// read-only tools (agent.ReadOnlyTool).
const HookName = "gemini"

// Payload is the part of a Gemini CLI hook event the adapter reads.
type Payload struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	// OriginalRequestName is the tool the model asked for when this is a
	// tail call another hook requested.
	OriginalRequestName string `json:"original_request_name"`
}

// Read reads one hook event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) {
	return agent.ReadEvent(Name, r, o, Event)
}

// RunID derives the run id of a session: "gm-" and the session id.
func RunID(p *Payload) record.RunID { return agent.RunID(RunPrefix, p.SessionID, p.TranscriptPath) }

// pairPrefix starts the call ids of a session: gm-<first 8 characters of
// the session id>-, then the counter.
func pairPrefix(p *Payload) string {
	sid := string(RunID(p))[len(RunPrefix):]
	if len(sid) > 8 {
		sid = sid[:8]
	}
	return RunPrefix + sid + "-"
}

// hooks are the Gemini CLI events the adapter acts on.
var hooks = agent.Hooks{
	BeforeTool:   {Kind: agent.Pre},
	AfterTool:    {Kind: agent.Post},
	SessionStart: {Kind: agent.SessionStart, EndOthers: true},
	SessionEnd:   {Kind: agent.SessionEnd, EndLabel: "Gemini CLI session ended"},
}

// Event maps a payload to an agent.Event.
func Event(p *Payload, o agent.ReadOptions) (*agent.Event, error) {
	ev := &agent.Event{Agent: Name, Name: p.HookEventName, RunID: RunID(p), Cwd: p.Cwd, MessagesRef: p.TranscriptPath,
		Pair: true, PairPrefix: pairPrefix(p)}
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
	if ev.Kind == agent.Post {
		ev.Finish = agent.ResponseFinish(p.ToolResponse)
		if ev.Whole {
			if code, signal := ShellExit(p.ToolResponse); code != nil || signal != "" {
				ev.Finish.Status, ev.Finish.ExitCode = record.StatusFailed, code
				if ev.Finish.Result == "" && code != nil {
					ev.Finish.Result = "exit code " + strconv.Itoa(*code)
				}
				if signal != "" {
					ev.Finish.Result = strings.TrimPrefix(ev.Finish.Result+"; terminated by signal "+signal, "; ")
				}
			}
		}
	}
	return ev, nil
}
