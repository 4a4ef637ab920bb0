package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/internal/git"
)

// ccHookMatcher selects the Claude Code tools that can change files.
const ccHookMatcher = "Write|Edit|MultiEdit|NotebookEdit|Bash"

// ccHookCommand is the command the hooks run.
const ccHookCommand = "gitguard hook claude-code"

// ccHookEvents are the events the hook is registered for, in order;
// SessionEnd takes no matcher.
var ccHookEvents = []string{ccPreToolUse, ccPostToolUse, ccPostToolUseFailure, ccSessionEnd}

type initClaudeOptions struct {
	write, local, dryRun bool
	command              string
}

func newInitCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:        "init",
		Usage:       "set gitguard up for an agent: claude-code",
		Description: "Prints (or writes) the configuration an agent needs to record its tool calls with gitguard.",
		Subcommands: []*cli.Command{newInitClaudeCodeCommand(e)},
	}
}

func newInitClaudeCodeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "claude-code",
		Usage:     "print or install the Claude Code hooks that record each tool use",
		UsageText: "gitguard init claude-code [--write [--local] [--dry-run]] [--command CMD] [--fail-closed]",
		Description: "Prints the \"hooks\" settings that make Claude Code run 'gitguard hook claude-code'\n" +
			"before and after every Write, Edit, MultiEdit, NotebookEdit and Bash tool use\n" +
			"(PreToolUse, PostToolUse, PostToolUseFailure) and at SessionEnd.\n" +
			"With --write the hooks are merged into .claude/settings.json at the top of the\n" +
			"work tree (.claude/settings.local.json with --local): other settings and other\n" +
			"hooks are kept, an event that already runs gitguard is left as it is, so running\n" +
			"it twice adds nothing. The file is replaced atomically (temp file + rename).",
		Flags: []cli.Flag{jsonFlag,
			&cli.BoolFlag{Name: "write", Usage: "merge the hooks into .claude/settings.json of the work tree"},
			&cli.BoolFlag{Name: "local", Usage: "with --write, use .claude/settings.local.json (not meant to be committed)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "with --write, print the merged settings and write nothing"},
			&cli.StringFlag{Name: "command", Value: ccHookCommand, Usage: "the hook `CMD` (e.g. an absolute path to gitguard)"},
			&cli.BoolFlag{Name: "fail-closed", Usage: "make the hook block a tool use it cannot record"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			o := initClaudeOptions{write: c.Bool("write"), local: c.Bool("local"), dryRun: c.Bool("dry-run"),
				command: strings.TrimSpace(c.String("command"))}
			if o.command == "" {
				return usagef("--command must not be empty")
			}
			if c.Bool("fail-closed") {
				o.command += " --fail-closed"
			}
			if (o.local || o.dryRun) && !o.write {
				return usagef("--local and --dry-run go with --write")
			}
			return runInitClaude(c.Context, e, o)
		},
	}
}

// ccGroup is one matcher group of Claude Code's hooks settings.
type ccGroup struct {
	Matcher string   `json:"matcher,omitempty"`
	Hooks   []ccHook `json:"hooks"`
}

type ccHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

func ccHookGroup(event, command string) ccGroup {
	g := ccGroup{Hooks: []ccHook{{Type: "command", Command: command}}}
	if event != ccSessionEnd {
		g.Matcher = ccHookMatcher
	}
	return g
}

// ccHooksConfig is the settings fragment, with the events in order.
func ccHooksConfig(command string) *jsonObject {
	hooks := newJSONObject()
	for _, ev := range ccHookEvents {
		b, _ := json.Marshal([]ccGroup{ccHookGroup(ev, command)})
		hooks.set(ev, b)
	}
	root := newJSONObject()
	b, _ := hooks.MarshalJSON()
	root.set("hooks", b)
	return root
}

type jsonInit struct {
	Version int      `json:"version"`
	Path    string   `json:"path"`
	Changed bool     `json:"changed"`
	Added   []string `json:"added"`
	DryRun  bool     `json:"dry_run,omitempty"`
}

func runInitClaude(ctx context.Context, e *env, o initClaudeOptions) error {
	if !o.write {
		out, err := indentJSON(ccHooksConfig(o.command), "  ")
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(out)
		return err
	}
	repo, err := git.Discover(ctx, e.dir)
	if err != nil {
		return err
	}
	name := "settings.json"
	if o.local {
		name = "settings.local.json"
	}
	path := filepath.Join(repo.WorkTree, ".claude", name)
	old, mode, err := readSettings(path)
	if err != nil {
		return err
	}
	merged, added, err := mergeClaudeHooks(old, o.command)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rel := filepath.ToSlash(filepath.Join(".claude", name))
	res := jsonInit{Version: jsonVersion, Path: rel, Changed: len(added) > 0, Added: nonNil(added), DryRun: o.dryRun}
	if o.dryRun {
		if e.json {
			return e.printJSON(res)
		}
		_, err := e.stdout.Write(merged)
		if len(added) == 0 {
			e.say("%s already runs gitguard for every event; nothing to change", rel)
		}
		return err
	}
	if len(added) > 0 {
		if err := atomicfile.WriteFile(path, merged, mode); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if e.json {
		return e.printJSON(res)
	}
	e.printf("%s\n", rel)
	if len(added) == 0 {
		e.say("%s already runs gitguard for every event; nothing changed", rel)
	} else {
		e.say("added the gitguard hook for %s to %s; Claude Code picks it up in its next session", strings.Join(added, ", "), rel)
	}
	return nil
}

// readSettings reads a settings file; a missing one is empty.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, usagef("%s is not a regular file; gitguard does not write through symlinks or replace folders", path)
	}
	data, err := os.ReadFile(path)
	return data, fi.Mode().Perm(), err
}

// mergeClaudeHooks adds the gitguard hook to every event of settings that
// does not run it yet, keeping everything else (and its order). It returns
// the new document and the events it added.
func mergeClaudeHooks(settings []byte, command string) ([]byte, []string, error) {
	indent := detectIndent(settings)
	root := newJSONObject()
	if len(bytes.TrimSpace(settings)) > 0 {
		var err error
		if root, err = parseJSONObject(settings); err != nil {
			return nil, nil, usagef("not a JSON object (%v); fix it by hand, or print the hooks with 'gitguard init claude-code' and add them yourself", err)
		}
	}
	hooks := newJSONObject()
	if raw, ok := root.vals["hooks"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		var err error
		if hooks, err = parseJSONObject(raw); err != nil {
			return nil, nil, usagef(`"hooks" is not a JSON object (%v); fix it by hand`, err)
		}
	}
	var added []string
	for _, ev := range ccHookEvents {
		var groups []json.RawMessage
		if raw, ok := hooks.vals[ev]; ok && string(bytes.TrimSpace(raw)) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, nil, usagef(`"hooks.%s" is not a list of matcher groups (%v); fix it by hand`, ev, err)
			}
		}
		if runsGitguard(groups) {
			continue
		}
		b, _ := json.Marshal(ccHookGroup(ev, command))
		groups = append(groups, b)
		list, err := json.Marshal(groups)
		if err != nil {
			return nil, nil, err
		}
		hooks.set(ev, list)
		added = append(added, ev)
	}
	hb, err := hooks.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	root.set("hooks", hb)
	out, err := indentJSON(root, indent)
	return out, added, err
}

// runsGitguard tells whether any matcher group already runs the gitguard
// hook, whatever path or flags it was given.
func runsGitguard(groups []json.RawMessage) bool {
	for _, g := range groups {
		var grp struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &grp) != nil {
			continue
		}
		for _, h := range grp.Hooks {
			if strings.Contains(h.Command, "hook claude-code") {
				return true
			}
		}
	}
	return false
}

// detectIndent guesses the indentation a JSON document uses ("  " when it
// cannot tell), so a merged file keeps its look.
func detectIndent(doc []byte) string {
	for _, line := range strings.Split(string(doc), "\n")[1:] {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed == "" {
			continue
		}
		if ws := line[:len(line)-len(trimmed)]; ws != "" {
			return ws
		}
		break
	}
	return "  "
}

func indentJSON(v json.Marshaler, indent string) ([]byte, error) {
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", indent); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// jsonObject is a JSON object that keeps its keys in order and its values
// as they were written, so rewriting a user's file changes only what was
// added.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]json.RawMessage{}} }

func (o *jsonObject) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func parseJSONObject(data []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("found %v where an object should start", tok)
	}
	o := newJSONObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o.set(key, raw)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("text after the closing brace")
	}
	return o, nil
}

// MarshalJSON writes the object compactly, keys in order.
func (o *jsonObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		var c bytes.Buffer
		if err := json.Compact(&c, o.vals[k]); err != nil {
			return nil, err
		}
		buf.Write(c.Bytes())
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func init() {
	commandSets = append(commandSets, func(e *env) []*cli.Command { return []*cli.Command{newInitCommand(e)} })
}
