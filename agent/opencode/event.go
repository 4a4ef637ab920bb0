package opencode

import (
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/codex"
	"github.com/gitguard/gitguard/record"
)

// Name is the agent's name in messages.
const Name = "opencode"

// RunPrefix starts the id of every opencode session's run.
const RunPrefix = "oc-"

// Events the plugin sends.
const (
	ToolBefore     = "tool.execute.before"
	ToolAfter      = "tool.execute.after"
	SessionIdle    = "session.idle"
	SessionDeleted = "session.deleted"
)

// fileTools name the one file they write in args.filePath.
var fileTools = map[string]record.Idempotency{
	"write":     record.Idempotent,
	"edit":      record.Conditional,
	"multiedit": record.Conditional,
}

// patchTools write the files their patch text names.
var patchTools = map[string]bool{"patch": true, "apply_patch": true}

// HookName is the adapter's name in `gitguard hook NAME`; it picks the
// read-only tools (agent.ReadOnlyTool).
const HookName = "opencode"

// Payload is the event the plugin sends.
type Payload struct {
	Event     string          `json:"event"`
	SessionID string          `json:"session_id"`
	CallID    string          `json:"call_id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Cwd       string          `json:"cwd"`
	Title     string          `json:"title"`
	Metadata  json.RawMessage `json:"metadata"`
	// Synthetic marks an after event the plugin made up at session.idle
	// for a tool use whose tool.execute.after never came.
	Synthetic bool `json:"synthetic"`
}

// Flavor is opencode, or an agent built on it that loads the same
// plugins (Kilo CLI): the names it goes by and where its plugin lives.
type Flavor struct {
	Name      string // in messages: "opencode"
	HookName  string // as in `gitguard hook NAME`; picks the read-only tools
	RunPrefix string // starts the id of every session's run
	// PluginRel is the plugin file below the project; Marker opens every
	// plugin file gitguard writes there.
	PluginRel string
	Marker    string
	// ConfigRel is the project's configuration file, where --mcp adds the
	// gitguard MCP server under "mcp".
	ConfigRel string
}

// Opencode is opencode itself.
var Opencode = Flavor{Name: Name, HookName: HookName, RunPrefix: RunPrefix, PluginRel: PluginRel, Marker: pluginMarker,
	ConfigRel: "opencode.json"}

// Read reads one plugin event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) { return Opencode.Read(r, o) }

// Event maps a payload to an agent.Event.
func Event(p *Payload, o agent.ReadOptions) (*agent.Event, error) { return Opencode.Event(p, o) }

// Read reads one plugin event from r.
func (f Flavor) Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) {
	var p Payload
	if err := agent.ReadPayload(f.Name, r, &p); err != nil {
		return nil, err
	}
	return f.Event(&p, o)
}

// Event maps a payload to an agent.Event.
func (f Flavor) Event(p *Payload, o agent.ReadOptions) (*agent.Event, error) {
	ev := &agent.Event{Agent: f.Name, Name: p.Event, RunID: agent.RunID(f.RunPrefix, p.SessionID, ""), Cwd: p.Cwd}
	switch p.Event {
	case ToolBefore:
		ev.Kind = agent.Pre
	case ToolAfter:
		ev.Kind = agent.Post
	case SessionIdle, SessionDeleted:
		ev.Kind, ev.EndLabel = agent.SessionEnd, f.Name+" session idle"
		return ev, nil
	case "":
		return nil, agent.PayloadErrorf(f.Name, "no event")
	default:
		ev.Warning = f.Name + " event " + p.Event + " is not one gitguard knows; not recorded"
		return ev, nil
	}
	args, err := agent.DecodeInput(f.Name, p.Args)
	if err != nil {
		return nil, err
	}
	ev.Tool = p.Tool
	ev.InputHash = agent.InputHash(args)
	ev.Idempotency = record.Conditional
	idem, fileTool := fileTools[p.Tool]
	switch {
	case fileTool:
		ev.Idempotency = idem
		path := agent.StringField(args, "filePath", "file_path", "path")
		if path == "" {
			return nil, agent.PayloadErrorf(f.Name, "%s args have no filePath", p.Tool)
		}
		ev.Paths = []string{path}
	case patchTools[p.Tool]:
		text := agent.StringField(args, "patchText", "patch", "input")
		if paths, ok := codex.PatchPaths(text); ok {
			ev.Paths = paths
			ev.Summary = agent.Summarize(p.Tool + " " + strings.Join(paths, " "))
		} else {
			ev.Whole, ev.Summary = true, p.Tool
		}
	case p.Tool == "bash" || slices.Contains(o.WorkspaceTools, p.Tool):
		ev.Whole = true
		ev.Summary = agent.Summarize(agent.StringField(args, "command"))
	case agent.ReadOnlyTool(f.HookName, p.Tool):
		ev.Kind = agent.Ignore
		return ev, nil
	case p.Tool == "":
		return nil, agent.PayloadErrorf(f.Name, "%s names no tool", p.Event)
	default:
		// An MCP tool, or one gitguard does not know: any file may change.
		ev.Whole = true
		ev.Summary = agent.ToolSummary(p.Tool, args)
	}
	if p.CallID != "" {
		ev.CallID = agent.CallID(p.CallID)
	} else {
		ev.IDBase = f.RunPrefix + agent.ShortHash(p.SessionID+"\x00"+p.Tool+"\x00"+ev.InputHash)
	}
	if ev.Kind == agent.Post {
		ev.Finish = f.finish(p)
	}
	return ev, nil
}

func (f Flavor) finish(p *Payload) gitguard.FinishOptions {
	if p.Synthetic {
		return gitguard.FinishOptions{Status: record.StatusUncertain,
			Result: f.Name + " sent no tool.execute.after; captured when the session went idle"}
	}
	if msg, failed := agent.ToolResponseError(p.Metadata); failed {
		return gitguard.FinishOptions{Status: record.StatusFailed, Result: agent.Summarize(msg)}
	}
	var md map[string]any
	if json.Unmarshal(p.Metadata, &md) == nil {
		if n, ok := md["exit"].(float64); ok && n != 0 {
			code := int(n)
			return gitguard.FinishOptions{Status: record.StatusFailed, ExitCode: &code, Result: agent.Summarize(p.Title)}
		}
	}
	return gitguard.FinishOptions{Status: record.StatusSucceeded}
}
