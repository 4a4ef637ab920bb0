package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/claudecode"
	"github.com/gitguard/gitguard/agent/codex"
	"github.com/gitguard/gitguard/agent/copilot"
	"github.com/gitguard/gitguard/agent/cursor"
	"github.com/gitguard/gitguard/agent/gemini"
	"github.com/gitguard/gitguard/agent/kilo"
	"github.com/gitguard/gitguard/agent/opencode"
	"github.com/gitguard/gitguard/agent/qwen"
)

// What the doctor knows of each agent beyond its adapter: where its
// hooks may be set up, the prefix of its runs, a hook event gitguard
// answers without recording anything (a read-only tool's pre event, so
// that running the hook command with it changes nothing), and whether it
// loads project hooks only in a trusted project.

// hookFile is one settings file an agent reads its hooks from.
type hookFile struct {
	rel  string // below the work tree's top, or below the home folder
	user bool   // in the home folder
	flag string // the init flag that writes it: "", "--local", "--user"
}

// doctorAgent is the doctor's view of one agent.
type doctorAgent struct {
	spec      *agentSpec
	runPrefix string
	files     []hookFile
	// plugin: the file is gitguard's plugin, its command a JSON list
	// (opencode, Kilo CLI).
	plugin bool
	// noop is a hook event of a read-only tool, as the agent sends it.
	noop func(top string) map[string]any
	// trust checks the trust settings project hooks need (nil: none).
	trust func(d *doctor, top string) doctorCheck
}

func doctorAgents() []*doctorAgent {
	byName := map[string]*agentSpec{}
	for _, s := range agentSpecs {
		byName[s.name] = s
	}
	claudeShape := func(event, tool string) func(top string) map[string]any {
		return func(top string) map[string]any {
			return map[string]any{"hook_event_name": event, "session_id": "gitguard-doctor", "cwd": top,
				"tool_name": tool, "tool_input": map[string]any{}, "tool_use_id": "gitguard-doctor"}
		}
	}
	pluginShape := func(top string) map[string]any {
		return map[string]any{"event": opencode.ToolBefore, "session_id": "gitguard-doctor", "call_id": "gitguard-doctor",
			"tool": "read", "args": map[string]any{}, "cwd": top}
	}
	return []*doctorAgent{
		{spec: byName["claude-code"], runPrefix: claudecode.RunPrefix,
			files: []hookFile{{rel: claudecode.SettingsRel(false)}, {rel: claudecode.SettingsRel(true), flag: "--local"},
				{rel: claudecode.SettingsRel(false), user: true}},
			noop: claudeShape(claudecode.PreToolUse, "Read")},
		{spec: byName["codex"], runPrefix: codex.RunPrefix,
			files: []hookFile{{rel: codex.ConfigRel}, {rel: codex.ConfigRel, user: true, flag: "--user"}},
			noop:  claudeShape(codex.PreToolUse, "update_plan"), trust: codexTrust},
		{spec: byName["gemini"], runPrefix: gemini.RunPrefix,
			files: []hookFile{{rel: gemini.SettingsRel}, {rel: gemini.SettingsRel, user: true, flag: "--user"}},
			noop:  claudeShape(gemini.BeforeTool, "read_file"), trust: geminiTrust},
		{spec: byName["opencode"], runPrefix: opencode.RunPrefix, plugin: true,
			files: []hookFile{{rel: opencode.PluginRel}}, noop: pluginShape},
		{spec: byName["qwen"], runPrefix: qwen.RunPrefix,
			files: []hookFile{{rel: qwen.SettingsRel}, {rel: qwen.SettingsRel, user: true, flag: "--user"}},
			noop:  claudeShape(qwen.PreToolUse, "read_file"), trust: qwenTrust},
		{spec: byName["copilot"], runPrefix: copilot.RunPrefix,
			files: []hookFile{{rel: copilot.SettingsRel}},
			noop:  claudeShape(copilot.PreToolUse, "Read"), trust: copilotTrust},
		{spec: byName["kilo"], runPrefix: kilo.Flavor.RunPrefix, plugin: true,
			files: []hookFile{{rel: kilo.Flavor.PluginRel}}, noop: pluginShape},
		{spec: byName["cursor"], runPrefix: cursor.RunPrefix,
			files: []hookFile{{rel: cursor.SettingsRel}, {rel: cursor.SettingsRel, user: true, flag: "--user"}},
			noop: func(top string) map[string]any {
				ev := claudeShape(cursor.PreToolUse, "Read")(top)
				ev["conversation_id"] = "gitguard-doctor"
				ev["cursor_version"] = "gitguard-doctor"
				return ev
			}},
	}
}

// installedHooks is what one settings file holds of gitguard's hooks.
type installedHooks struct {
	file     hookFile
	path     string   // absolute
	commands []string // the hook commands that run gitguard for this agent
	// missing are the events gitguard installs that the file does not
	// run it for (or what init would change: a matcher to widen, an
	// older plugin to replace).
	missing []string
	err     error // the file could not be read or understood
}

// display is the file's name as messages show it: "~/.codex/config.toml".
func (h installedHooks) display() string {
	if h.file.user {
		return "~/" + filepath.ToSlash(h.file.rel)
	}
	return filepath.ToSlash(h.file.rel)
}

// initCommand is the command that writes this file's hooks.
func (h installedHooks) initCommand(name string) string {
	c := "gitguard init " + name + " --write"
	if h.file.flag != "" {
		c += " " + h.file.flag
	}
	return c
}

// fix is the command that completes this file's hooks. init writes no
// user file for an agent without --user (Claude Code's
// ~/.claude/settings.json): the hooks it prints go there by hand.
func (h installedHooks) fix(name string) string {
	if h.file.user && h.file.flag == "" {
		return "add what 'gitguard init " + name + "' prints to " + h.display() + " (or set the project up: gitguard init " + name + " --write)"
	}
	return h.initCommand(name)
}

// installed reads each of the agent's settings files (home is "" when
// HOME is unset) and returns those that run gitguard's hook for it.
func (a *doctorAgent) installed(top, home string) []installedHooks {
	var out []installedHooks
	for _, f := range a.files {
		base := top
		if f.user {
			if home == "" {
				continue
			}
			base = home
		}
		h := installedHooks{file: f, path: filepath.Join(base, f.rel)}
		data, _, err := agent.ReadSettings(h.path)
		if err != nil {
			h.err = err
			out = append(out, h)
			continue
		}
		if len(data) == 0 {
			continue
		}
		if a.plugin {
			h.commands = pluginCommand(data)
		} else {
			h.commands = hookCommands(data, a.spec.name)
		}
		if len(h.commands) == 0 {
			continue
		}
		// What init would add with the command the file has is what is
		// missing: the adapters' own merge decides, so the doctor and
		// init never disagree.
		changes, err := a.spec.install(agent.InitOptions{Command: h.commands[0], Dir: base, Local: f.flag == "--local"})
		switch {
		case err != nil:
			h.err = err
		case len(changes) > 0:
			h.missing = changes[0].Added
		}
		out = append(out, h)
	}
	return out
}

// quotedString is a JSON or TOML basic string.
var quotedString = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)

// hookCommands are the strings of a JSON or TOML settings file that run
// "hook NAME" (as the adapters tell their own hooks), unquoted, in order,
// each once.
func hookCommands(data []byte, name string) []string {
	var out []string
	seen := map[string]bool{}
	for _, q := range quotedString.FindAll(data, -1) {
		var s string
		if json.Unmarshal(q, &s) != nil || !strings.Contains(s, "hook "+name) || seen[s] {
			continue
		}
		// A bare argument ("hook", "claude-code") is no command.
		if !strings.Contains(strings.TrimSpace(s), " ") {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// pluginLine is the line of gitguard's opencode plugin naming the command.
var pluginLine = regexp.MustCompile(`(?m)^const COMMAND = (\[.*\])\s*$`)

// pluginCommand is the command of a plugin gitguard wrote, words joined
// as the plugin's writer splits them.
func pluginCommand(data []byte) []string {
	m := pluginLine.FindSubmatch(data)
	if m == nil {
		return nil
	}
	var words []string
	if json.Unmarshal(m[1], &words) != nil || len(words) == 0 {
		return nil
	}
	return []string{strings.Join(words, " ")}
}

// homeFile is a file below the home folder, or below dirEnv when that
// variable is set (CODEX_HOME).
func homeFile(d *doctor, dirEnv, sub, rel string) string {
	if dirEnv != "" {
		if v := d.e.getenv(dirEnv); v != "" {
			return filepath.Join(v, rel)
		}
	}
	if d.home == "" {
		return ""
	}
	return filepath.Join(d.home, sub, rel)
}

// readJSONFile reads a JSON object; ok is false when the file is missing.
func readJSONFile(path string) (v map[string]any, ok bool, err error) {
	if path == "" {
		return nil, false, nil
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, true, err
	}
	return v, true, nil
}

// dig returns the value at a path of keys of a decoded JSON object.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
