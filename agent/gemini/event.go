package gemini

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard"
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

// Options tune Read.
type Options struct {
	// WorkspaceTools are tools to record as whole-workspace calls even
	// where gitguard takes them to be read-only; every tool gitguard does
	// not know is recorded so anyway.
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

// Event maps a payload to an agent.Event.
func Event(p *Payload, o Options) (*agent.Event, error) {
	ev := &agent.Event{Agent: Name, Name: p.HookEventName, RunID: RunID(p), Cwd: p.Cwd, MessagesRef: p.TranscriptPath,
		Pair: true, PairPrefix: pairPrefix(p)}
	switch p.HookEventName {
	case BeforeTool:
		ev.Kind = agent.Pre
	case AfterTool:
		ev.Kind = agent.Post
	case SessionStart:
		ev.Kind, ev.EndOthers = agent.SessionStart, RunPrefix
		return ev, nil
	case SessionEnd:
		ev.Kind, ev.EndLabel = agent.SessionEnd, "Gemini CLI session ended"
		return ev, nil
	case "":
		return nil, agent.PayloadErrorf(Name, "no hook_event_name")
	default:
		if !quietEvents[p.HookEventName] {
			ev.Warning = "Gemini CLI event " + p.HookEventName + " is not one gitguard knows; not recorded"
		}
		return ev, nil
	}
	idem, fileTool := FileTools[p.ToolName]
	whole := p.ToolName == ShellTool || contains(o.WorkspaceTools, p.ToolName)
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
		path := agent.StringField(input, "file_path", "absolute_path", "path")
		if path == "" {
			return nil, agent.PayloadErrorf(Name, "%s tool_input has no file_path", p.ToolName)
		}
		ev.Paths = []string{path}
	} else {
		ev.Whole = true
		ev.Summary = agent.ToolSummary(p.ToolName, input)
	}
	if ev.Kind == agent.Post {
		ev.Finish = gitguard.FinishOptions{Status: record.StatusSucceeded}
		if msg, failed := agent.ToolResponseError(p.ToolResponse); failed {
			ev.Finish = gitguard.FinishOptions{Status: record.StatusFailed, Result: agent.Summarize(msg)}
		}
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
