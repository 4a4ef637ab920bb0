package copilot

import (
	"encoding/json"
	"io"
	"regexp"
	"strconv"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/record"
)

// Name is the agent's name in messages.
const Name = "Copilot CLI"

// HookName is the adapter's name in `gitguard hook NAME`; it picks the
// read-only tools (agent.ReadOnlyTool).
const HookName = "copilot"

// RunPrefix starts the id of every Copilot CLI session's run.
const RunPrefix = "cp-"

// Hook event names the adapter acts on (Claude Code's spelling, which
// makes Copilot CLI send Claude Code's payload shape).
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
)

// quietEvents are Copilot CLI events gitguard has no use for.
var quietEvents = map[string]bool{
	"UserPromptSubmit": true, "Stop": true, "SubagentStart": true, "SubagentStop": true, "Notification": true,
	"PreCompact": true, "PermissionRequest": true, "ErrorOccurred": true, "AgentStop": true,
}

// fileTools name the one file they write in tool_input.path: Claude Code's
// names, which Copilot CLI sends for its create and edit tools, and those.
var fileTools = map[string]record.Idempotency{
	"Write": record.Idempotent, "Edit": record.Conditional, "MultiEdit": record.Conditional,
	"create": record.Idempotent, "edit": record.Conditional,
}

// shellTools may change any file.
var shellTools = map[string]bool{"Bash": true, "bash": true, "PowerShell": true, "powershell": true}

var tools = agent.Tools{Agent: Name, HookName: HookName, Files: fileTools,
	PathFields: []string{"path", "file_path"}, Shell: shellTools}

// Payload is the part of a Copilot CLI hook event the adapter reads.
type Payload struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResult    *struct {
		ResultType string `json:"result_type"` // success, failure, rejected, denied
		Text       string `json:"text_result_for_llm"`
	} `json:"tool_result"`
	Error  string `json:"error"`  // PostToolUseFailure
	Reason string `json:"reason"` // SessionEnd: complete, error, user_exit...
}

// Read reads one hook event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) {
	return agent.ReadEvent(Name, r, o, Event)
}

// RunID derives the run id of a session: "cp-" and the session id.
func RunID(p *Payload) record.RunID { return agent.RunID(RunPrefix, p.SessionID, "") }

// pairPrefix starts the call ids of a session: cp-<first 8 characters of
// the session id>-, then the counter.
func pairPrefix(p *Payload) string {
	sid := string(RunID(p))[len(RunPrefix):]
	if len(sid) > 8 {
		sid = sid[:8]
	}
	return RunPrefix + sid + "-"
}

// hooks are the Copilot CLI events the adapter acts on.
var hooks = agent.Hooks{
	PreToolUse:         {Kind: agent.Pre},
	PostToolUse:        {Kind: agent.Post},
	PostToolUseFailure: {Kind: agent.Post},
	SessionStart:       {Kind: agent.SessionStart, EndOthers: true},
	SessionEnd:         {Kind: agent.SessionEnd, EndLabel: "Copilot CLI session ended"},
}

// Event maps a payload to an agent.Event.
func Event(p *Payload, o agent.ReadOptions) (*agent.Event, error) {
	ev := &agent.Event{Agent: Name, Name: p.HookEventName, RunID: RunID(p), Cwd: p.Cwd, Pair: true, PairPrefix: pairPrefix(p)}
	if p.HookEventName == "" {
		return nil, agent.PayloadErrorf(Name, "no hook_event_name (gitguard's hooks use Claude Code's event names, PreToolUse and so on)")
	}
	toolUse, err := hooks.Classify(ev, RunPrefix, quietEvents)
	if err != nil {
		return nil, err
	}
	if !toolUse {
		return ev, nil
	}
	if p.SessionID == "" {
		return nil, agent.PayloadErrorf(Name, "%s has no session_id", p.HookEventName)
	}
	if _, err := tools.Scope(ev, p.ToolName, p.ToolInput, o.WorkspaceTools); err != nil {
		return nil, err
	}
	if ev.Kind == agent.Ignore {
		return ev, nil
	}
	if ev.Kind == agent.Post {
		ev.Finish = finish(p, shellTools[p.ToolName])
	}
	return ev, nil
}

// shellExit is how Copilot CLI ends a shell tool's result:
// "<shellId: 3 completed with exit code 3>".
var shellExit = regexp.MustCompile(`<shellId: [^>]* completed with exit code (-?\d+)>\s*$`)

// finish reads how the tool use ended: PostToolUseFailure, a result that
// is not a success, or a shell command's non-zero exit code.
func finish(p *Payload, shell bool) gitguard.FinishOptions {
	if p.HookEventName == PostToolUseFailure {
		return agent.Failed(p.Error)
	}
	if r := p.ToolResult; r != nil {
		if r.ResultType != "" && r.ResultType != "success" {
			return gitguard.FinishOptions{Status: record.StatusFailed, Result: agent.Summarize(r.ResultType + ": " + r.Text)}
		}
		if m := shellExit.FindStringSubmatch(r.Text); shell && m != nil {
			if code, err := strconv.Atoi(m[1]); err == nil && code != 0 {
				return gitguard.FinishOptions{Status: record.StatusFailed, ExitCode: &code, Result: "exit code " + m[1]}
			}
		}
	}
	return gitguard.FinishOptions{Status: record.StatusSucceeded}
}
