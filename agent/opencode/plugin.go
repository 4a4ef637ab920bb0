package opencode

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/internal/hookjson"
)

// HookCommand is the command the plugin runs.
const HookCommand = "gitguard hook opencode"

// PluginRel is the plugin file below the project.
var PluginRel = filepath.Join(".opencode", "plugin", "gitguard.js")

// pluginMarker opens every plugin file gitguard writes; a file without it
// is the user's and is never replaced.
const pluginMarker = "// gitguard opencode plugin"

// pluginTemplate is the plugin. It runs the hook once per event, the event
// as JSON on stdin, and waits for it: the before state is recorded before
// the tool runs. A hook that exits non-zero (only with --fail-closed) makes
// tool.execute.before throw, which stops the tool. Tool uses whose
// tool.execute.after never came are sent, marked synthetic, when the
// session goes idle.
const pluginTemplate = `@MARKER@ v2: written by 'gitguard init @NAME@ --write'.
// It records each tool use with gitguard (see 'gitguard hook @NAME@ --help').
// Rewritten by that command; to change the command, use its --command flag.
import { spawn, spawnSync } from "node:child_process"

const COMMAND = @COMMAND@
// Tools that change no file: their tool uses need no hook.
const READ_ONLY = new Set(@READONLY@)

export const GitguardPlugin = async ({ directory, client }) => {
  const open = new Map() // callID -> {tool, args, sessionID}
  const say = async (text) => {
    if (!text) return
    try {
      await client.app.log({ body: { service: "gitguard", level: "warn", message: text } })
    } catch {
      console.error(text)
    }
  }
  const hook = (event) =>
    new Promise((resolve) => {
      let stderr = ""
      let child
      try {
        child = spawn(COMMAND[0], COMMAND.slice(1), { cwd: directory, stdio: ["pipe", "ignore", "pipe"] })
      } catch (err) {
        resolve({ code: 1, stderr: "gitguard: could not run " + COMMAND[0] + ": " + err })
        return
      }
      child.stderr.on("data", (d) => (stderr += d))
      child.on("error", (err) => resolve({ code: 1, stderr: "gitguard: could not run " + COMMAND[0] + ": " + err }))
      child.on("close", (code) => resolve({ code: code ?? 1, stderr }))
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify({ cwd: directory, ...event }))
    })
  // The end of a session is recorded synchronously: opencode may exit as
  // soon as it has called this handler, before any promise settles.
  const hookSync = (event) => {
    const r = spawnSync(COMMAND[0], COMMAND.slice(1), {
      cwd: directory, input: JSON.stringify({ cwd: directory, ...event }), stdio: ["pipe", "ignore", "pipe"],
    })
    if (r.error) return { code: 1, stderr: "gitguard: could not run " + COMMAND[0] + ": " + r.error }
    return { code: r.status ?? 1, stderr: String(r.stderr ?? "") }
  }
  return {
    "tool.execute.before": async (input, output) => {
      if (READ_ONLY.has(input.tool)) return
      open.set(input.callID, { tool: input.tool, args: output.args, sessionID: input.sessionID })
      const r = await hook({ event: "tool.execute.before", session_id: input.sessionID, call_id: input.callID,
        tool: input.tool, args: output.args })
      await say(r.stderr.trim())
      if (r.code !== 0) {
        open.delete(input.callID)
        throw new Error("gitguard could not record this tool use, and fails closed: " + r.stderr.trim())
      }
    },
    "tool.execute.after": async (input, output) => {
      if (READ_ONLY.has(input.tool)) return
      const started = open.get(input.callID)
      open.delete(input.callID)
      const r = await hook({ event: "tool.execute.after", session_id: input.sessionID, call_id: input.callID,
        tool: input.tool, args: input.args ?? started?.args, title: output?.title, metadata: output?.metadata })
      await say(r.stderr.trim())
    },
    event: async ({ event }) => {
      if (event.type !== "session.idle" && event.type !== "session.deleted") return
      const sessionID = event.properties?.sessionID ?? event.properties?.info?.id
      const said = []
      for (const [callID, c] of open) {
        if (c.sessionID !== sessionID) continue
        open.delete(callID)
        said.push(hookSync({ event: "tool.execute.after", session_id: sessionID, call_id: callID, tool: c.tool,
          args: c.args, synthetic: true }).stderr.trim())
      }
      said.push(hookSync({ event: event.type, session_id: sessionID }).stderr.trim())
      for (const text of said) await say(text)
    },
  }
}
`

// Plugin returns the plugin file that runs command.
func Plugin(command string) []byte { return Opencode.Plugin(command) }

// Plugin returns the plugin file that runs command.
func (f Flavor) Plugin(command string) []byte {
	words := strings.Fields(command)
	if len(words) == 0 {
		words = []string{"gitguard", "hook", f.HookName}
	}
	list, _ := json.Marshal(words)
	ro, _ := json.Marshal(readOnly(f.HookName, words))
	return []byte(strings.NewReplacer("@MARKER@", f.Marker, "@NAME@", f.HookName, "@COMMAND@", string(list),
		"@READONLY@", string(ro)).Replace(pluginTemplate))
}

// readOnly lists the agent's read-only tools less those the hook command
// records with --workspace-tool.
func readOnly(name string, command []string) []string {
	skip := map[string]bool{}
	for i, a := range command {
		if v, ok := strings.CutPrefix(a, "--workspace-tool="); ok {
			skip[v] = true
		} else if a == "--workspace-tool" && i+1 < len(command) {
			skip[command[i+1]] = true
		}
	}
	var out []string
	for _, t := range agent.ReadOnlyTools(name) {
		if !skip[t] {
			out = append(out, t)
		}
	}
	return out
}

// Fragment returns the plugin, to print.
func Fragment(o agent.InitOptions) ([]byte, error) { return Opencode.Fragment(o) }

// Fragment returns the plugin, to print.
func (f Flavor) Fragment(o agent.InitOptions) ([]byte, error) { return f.Plugin(o.Command), nil }

// Init computes the changes "gitguard init opencode --write" makes (see
// Flavor.Init).
func Init(o agent.InitOptions) ([]agent.Change, error) { return Opencode.Init(o) }

// Init computes the changes "gitguard init NAME --write" makes: the
// plugin file written whole (replacing an older gitguard plugin, never a
// file of the user's), and with o.MCP the gitguard MCP server added to the
// project's configuration file (opencode.json).
func (f Flavor) Init(o agent.InitOptions) ([]agent.Change, error) {
	want := f.Plugin(o.Command)
	c, err := agent.MergeFile(o.Dir, f.PluginRel, func(old []byte) ([]byte, []string, error) {
		switch {
		case bytes.Equal(old, want):
			return old, nil, nil
		case len(old) > 0 && !bytes.HasPrefix(old, []byte(f.Marker)):
			return nil, nil, agent.NotSettingsf("not a plugin gitguard wrote; move it away to let gitguard write its own")
		case len(old) > 0:
			return want, []string{"tool.execute.before, tool.execute.after, session.idle (plugin updated)"}, nil
		}
		return want, []string{"tool.execute.before, tool.execute.after, session.idle"}, nil
	})
	if err != nil {
		return nil, err
	}
	out := []agent.Change{c}
	if o.MCP {
		server, _ := json.Marshal(map[string]any{"type": "local", "command": strings.Fields(o.MCPCommand), "enabled": true})
		m, err := agent.MergeFile(o.Dir, f.ConfigRel, func(old []byte) ([]byte, []string, error) {
			return hookjson.MergeMCPServer(old, "mcp", "gitguard", server)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
