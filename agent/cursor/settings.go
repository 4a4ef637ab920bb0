package cursor

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/hookjson"
)

// HookCommand is the command the hooks run.
const HookCommand = "gitguard hook cursor"

// HookEvents are the events the hook is registered for, in order. No
// matcher: every tool, so that a tool that writes files and that gitguard
// does not know is recorded as a whole-workspace call; the hook answers
// read-only tools at once.
var HookEvents = []string{PreToolUse, PostToolUse, PostToolUseFailure, Stop, SessionStart, SessionEnd}

// SettingsRel is Cursor's hooks file below the project (or the home
// folder).
var SettingsRel = filepath.Join(".cursor", "hooks.json")

// hookEntry is one hook of .cursor/hooks.json.
type hookEntry struct {
	Command string `json:"command"`
}

// merge adds, to each event that does not run gitguard yet, a hook that
// runs command, keeping everything else in the file and its order.
func merge(old []byte, command string) ([]byte, []string, error) {
	indent := hookjson.DetectIndent(old)
	root := hookjson.NewObject()
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if root, err = hookjson.ParseObject(old); err != nil {
			return nil, nil, agent.NotSettingsf("not a JSON object (%v)", err)
		}
	}
	if _, ok := root.Get("version"); !ok {
		root.Set("version", json.RawMessage("1"))
	}
	hooks := hookjson.NewObject()
	if raw, ok := root.Get("hooks"); ok && string(bytes.TrimSpace(raw)) != "null" {
		var err error
		if hooks, err = hookjson.ParseObject(raw); err != nil {
			return nil, nil, agent.NotSettingsf(`"hooks" is not a JSON object (%v)`, err)
		}
	}
	var added []string
	for _, ev := range HookEvents {
		var list []json.RawMessage
		if raw, ok := hooks.Get(ev); ok && string(bytes.TrimSpace(raw)) != "null" {
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, nil, agent.NotSettingsf(`"hooks.%s" is not a list of hooks (%v)`, ev, err)
			}
		}
		if runsGitguard(list) {
			continue
		}
		b, err := json.Marshal(hookEntry{Command: command})
		if err != nil {
			return nil, nil, err
		}
		list = append(list, b)
		out, err := json.Marshal(list)
		if err != nil {
			return nil, nil, err
		}
		hooks.Set(ev, out)
		added = append(added, ev)
	}
	hb, err := hooks.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	root.Set("hooks", hb)
	out, err := hookjson.Indent(root, indent)
	return out, added, err
}

func runsGitguard(list []json.RawMessage) bool {
	for _, raw := range list {
		var h hookEntry
		if json.Unmarshal(raw, &h) == nil && strings.Contains(h.Command, "hook cursor") {
			return true
		}
	}
	return false
}

// Fragment returns the hooks file that runs o.Command, to print.
func Fragment(o agent.InitOptions) ([]byte, error) {
	out, _, err := merge(nil, o.Command)
	return out, err
}

// Init computes the changes "gitguard init cursor --write" makes: the
// hooks merged into .cursor/hooks.json below o.Dir, and with o.MCP the
// gitguard MCP server added to .cursor/mcp.json.
func Init(o agent.InitOptions) ([]agent.Change, error) {
	return hookjson.Init(o, SettingsRel, func(old []byte) ([]byte, []string, error) { return merge(old, o.Command) },
		filepath.Join(".cursor", "mcp.json"))
}
