package codex

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/gitguard/gitguard/agent"
)

// HookCommand is the command the hooks run.
const HookCommand = "gitguard hook codex"

// HookEvents are the events the hook is registered for, in order.
var HookEvents = []string{PreToolUse, PostToolUse, SessionStart, Stop}

// ConfigRel is Codex's configuration file below the project (or the home
// folder).
var ConfigRel = filepath.Join(".codex", "config.toml")

// hookBlock is the TOML text of one event's hook.
func hookBlock(event, command string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[[hooks.%s]]\n", event)
	// No matcher: every tool. A tool that writes files and that gitguard
	// does not know (an MCP server's, one a newer Codex adds) is recorded
	// as a whole-workspace call; the hook answers read-only tools at once.
	fmt.Fprintf(&b, "\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\n", event, tomlString(command))
	return b.String()
}

// mcpBlock registers the gitguard MCP server.
func mcpBlock(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 {
		f = []string{"gitguard", "mcp"}
	}
	args := make([]string, 0, len(f)-1)
	for _, a := range f[1:] {
		args = append(args, tomlString(a))
	}
	return fmt.Sprintf("[mcp_servers.gitguard]\ncommand = %s\nargs = [%s]\n", tomlString(f[0]), strings.Join(args, ", "))
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Fragment returns the config.toml text that runs command, to print.
func Fragment(o agent.InitOptions) ([]byte, error) {
	var blocks []string
	for _, ev := range HookEvents {
		blocks = append(blocks, hookBlock(ev, o.Command))
	}
	if o.MCP {
		blocks = append(blocks, mcpBlock(o.MCPCommand))
	}
	return []byte(strings.Join(blocks, "\n")), nil
}

// Init computes the change "gitguard init codex --write" makes to
// .codex/config.toml below o.Dir: a hook table for every event that does
// not run gitguard yet, appended at the end, the rest of the file kept
// byte for byte (comments included). With o.MCP the gitguard MCP server is
// added unless an mcp_servers.gitguard table exists.
func Init(o agent.InitOptions) ([]agent.Change, error) {
	c, err := agent.MergeFile(o.Dir, ConfigRel, func(old []byte) ([]byte, []string, error) {
		return mergeConfig(old, o)
	})
	if err != nil {
		return nil, err
	}
	return []agent.Change{c}, nil
}

func mergeConfig(old []byte, o agent.InitOptions) ([]byte, []string, error) {
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		return nil, nil, agent.NotSettingsf("not TOML (%v)", err)
	}
	hooks, _ := doc["hooks"].(map[string]any)
	if doc["hooks"] != nil && hooks == nil {
		return nil, nil, agent.NotSettingsf("hooks is not a table")
	}
	var added, blocks []string
	old, widened := widenMatchers(old)
	added = append(added, widened...)
	for _, ev := range HookEvents {
		if runsGitguard(hooks[ev]) {
			continue
		}
		blocks = append(blocks, hookBlock(ev, o.Command))
		added = append(added, ev)
	}
	if o.MCP {
		servers, _ := doc["mcp_servers"].(map[string]any)
		if _, ok := servers["gitguard"]; !ok {
			blocks = append(blocks, mcpBlock(o.MCPCommand))
			added = append(added, "mcp server gitguard")
		}
	}
	if len(added) == 0 {
		return old, nil, nil
	}
	if len(blocks) == 0 {
		return old, added, nil // only widened
	}
	var out bytes.Buffer
	out.Write(old)
	if len(old) > 0 {
		if !bytes.HasSuffix(old, []byte("\n")) {
			out.WriteByte('\n')
		}
		out.WriteByte('\n')
	}
	out.WriteString("# gitguard: record each Codex tool use (gitguard init codex)\n")
	out.WriteString(strings.Join(blocks, "\n"))
	// The appended tables must make a valid file that says what was meant:
	// a file that defines hooks some other way (an inline table, a static
	// array) cannot take [[hooks.EVENT]] tables.
	var check map[string]any
	if err := toml.Unmarshal(out.Bytes(), &check); err != nil {
		return nil, nil, agent.NotSettingsf("its hooks are written in a form gitguard cannot append to (%v)", err)
	}
	ch, _ := check["hooks"].(map[string]any)
	for _, ev := range added {
		if strings.HasPrefix(ev, "mcp ") || strings.Contains(ev, " (") {
			continue
		}
		if !runsGitguard(ch[ev]) {
			return nil, nil, agent.NotSettingsf("hooks.%s did not take the appended table", ev)
		}
	}
	return out.Bytes(), added, nil
}

// oldMatcherLine is the matcher an older gitguard wrote into its
// PreToolUse and PostToolUse tables; oldTable is such a table as it wrote
// it (event, matcher, then the hook running gitguard).
const oldMatcherLine = "matcher = \"Bash|apply_patch\"\n"

var oldTable = regexp.MustCompile(`(?m)^\[\[hooks\.(PreToolUse|PostToolUse)\]\]\n` + regexp.QuoteMeta(oldMatcherLine) +
	`\n\[\[hooks\.(?:PreToolUse|PostToolUse)\.hooks\]\]\ntype = "command"\ncommand = "[^"\n]*hook codex[^"\n]*"\n`)

// widenMatchers drops the matcher from the hook tables an older gitguard
// wrote (exactly as it wrote them), so that they match every tool, and
// says which events it widened. Anything else in the file is kept byte
// for byte.
func widenMatchers(old []byte) ([]byte, []string) {
	var widened []string
	out := oldTable.ReplaceAllFunc(old, func(table []byte) []byte {
		widened = append(widened, string(oldTable.FindSubmatch(table)[1])+" (matcher removed: every tool)")
		return bytes.Replace(table, []byte(oldMatcherLine), nil, 1)
	})
	return out, widened
}

// runsGitguard tells whether an event's groups already run the codex hook,
// whatever path or flags it was given.
func runsGitguard(v any) bool {
	groups, _ := v.([]any)
	for _, g := range groups {
		gm, _ := g.(map[string]any)
		hs, _ := gm["hooks"].([]any)
		for _, h := range hs {
			hm, _ := h.(map[string]any)
			if c, _ := hm["command"].(string); strings.Contains(c, "hook codex") {
				return true
			}
		}
	}
	return false
}
