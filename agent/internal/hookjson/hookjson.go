// Package hookjson merges command hooks into an agent's JSON settings file
// of the shape Claude Code introduced and Gemini CLI and others copied:
//
//	{"hooks": {"EVENT": [{"matcher": "...", "hooks": [{"type": "command", "command": "..."}]}]}}
//
// A merge keeps every other setting and hook, their order and the file's
// indentation, and adds a group to an event only when none of its groups
// runs the hook already, so merging twice is merging once.
package hookjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gitguard/gitguard/agent"
)

// Group is one matcher group.
type Group struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []Hook `json:"hooks"`
}

// Hook is one command hook.
type Hook struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// Plan says which group each event gets.
type Plan struct {
	Events []string
	Group  func(event string) Group
	// Runs tells whether a command already is the hook (whatever path or
	// flags it was given).
	Runs func(command string) bool
	// OldMatchers are matchers an older gitguard wrote for the hook: a
	// group that runs the hook with one of them gets the plan's matcher
	// instead, so that merging again widens it.
	OldMatchers []string
}

// Fragment is the "hooks" settings of the plan alone, events in order.
func Fragment(p Plan) (*Object, error) {
	hooks := NewObject()
	for _, ev := range p.Events {
		b, err := json.Marshal([]Group{p.Group(ev)})
		if err != nil {
			return nil, err
		}
		hooks.Set(ev, b)
	}
	root := NewObject()
	b, err := hooks.MarshalJSON()
	if err != nil {
		return nil, err
	}
	root.Set("hooks", b)
	return root, nil
}

// Merge adds the plan's hooks to settings (empty means a new file) and
// returns the new document and the events it added to.
func Merge(settings []byte, p Plan) ([]byte, []string, error) {
	indent := DetectIndent(settings)
	root := NewObject()
	if len(bytes.TrimSpace(settings)) > 0 {
		var err error
		if root, err = ParseObject(settings); err != nil {
			return nil, nil, agent.NotSettingsf("not a JSON object (%v)", err)
		}
	}
	hooks := NewObject()
	if raw, ok := root.Get("hooks"); ok && string(bytes.TrimSpace(raw)) != "null" {
		var err error
		if hooks, err = ParseObject(raw); err != nil {
			return nil, nil, agent.NotSettingsf(`"hooks" is not a JSON object (%v)`, err)
		}
	}
	var added []string
	for _, ev := range p.Events {
		var groups []json.RawMessage
		if raw, ok := hooks.Get(ev); ok && string(bytes.TrimSpace(raw)) != "null" {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, nil, agent.NotSettingsf(`"hooks.%s" is not a list of matcher groups (%v)`, ev, err)
			}
		}
		if runs(groups, p.Runs) {
			widened, err := widen(groups, p, ev)
			if err != nil {
				return nil, nil, err
			}
			if widened == nil {
				continue
			}
			hooks.Set(ev, widened)
			added = append(added, ev+" (matcher "+p.Group(ev).Matcher+")")
			continue
		}
		b, err := json.Marshal(p.Group(ev))
		if err != nil {
			return nil, nil, err
		}
		groups = append(groups, b)
		list, err := json.Marshal(groups)
		if err != nil {
			return nil, nil, err
		}
		hooks.Set(ev, list)
		added = append(added, ev)
	}
	hb, err := hooks.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	root.Set("hooks", hb)
	out, err := Indent(root, indent)
	return out, added, err
}

// widen returns groups with the matcher of each group that runs the hook
// under one of p.OldMatchers replaced by the plan's, or nil when there is
// none such.
func widen(groups []json.RawMessage, p Plan, ev string) (json.RawMessage, error) {
	want := p.Group(ev).Matcher
	if len(p.OldMatchers) == 0 || want == "" {
		return nil, nil
	}
	changed := false
	for i, g := range groups {
		var grp struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &grp) != nil || !containsString(p.OldMatchers, grp.Matcher) {
			continue
		}
		mine := false
		for _, h := range grp.Hooks {
			mine = mine || p.Runs(h.Command)
		}
		if !mine {
			continue
		}
		obj, err := ParseObject(g)
		if err != nil {
			continue
		}
		m, _ := json.Marshal(want)
		obj.Set("matcher", m)
		if groups[i], err = obj.MarshalJSON(); err != nil {
			return nil, err
		}
		changed = true
	}
	if !changed {
		return nil, nil
	}
	return json.Marshal(groups)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func runs(groups []json.RawMessage, is func(string) bool) bool {
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
			if is(h.Command) {
				return true
			}
		}
	}
	return false
}

// DetectIndent guesses the indentation a JSON document uses ("  " when it
// cannot tell), so a merged file keeps its look.
func DetectIndent(doc []byte) string {
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

// Indent writes v indented, with a final newline.
func Indent(v json.Marshaler, indent string) ([]byte, error) {
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

// Object is a JSON object that keeps its keys in order and its values as
// they were written, so rewriting a user's file changes only what was
// added.
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{vals: map[string]json.RawMessage{}} }

// Get returns the value of key.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Set sets key, appending it when new.
func (o *Object) Set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// ParseObject reads one JSON object, keys in order.
func ParseObject(data []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("found %v where an object should start", tok)
	}
	o := NewObject()
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
		o.Set(key, raw)
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
func (o *Object) MarshalJSON() ([]byte, error) {
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

// MCPServer is the stdio MCP server entry that runs command (split at
// spaces into the program and its arguments).
func MCPServer(command string) json.RawMessage {
	f := strings.Fields(command)
	if len(f) == 0 {
		f = []string{"gitguard", "mcp"}
	}
	b, _ := json.Marshal(struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}{f[0], append([]string{}, f[1:]...)})
	return b
}

// MergeMCPServer adds server under settings[key][name] unless an entry of
// that name exists (whatever it holds: the user's own wins). It returns
// the new document and ["mcp"] when it added the server.
func MergeMCPServer(settings []byte, key, name string, server json.RawMessage) ([]byte, []string, error) {
	indent := DetectIndent(settings)
	root := NewObject()
	if len(bytes.TrimSpace(settings)) > 0 {
		var err error
		if root, err = ParseObject(settings); err != nil {
			return nil, nil, agent.NotSettingsf("not a JSON object (%v)", err)
		}
	}
	servers := NewObject()
	if raw, ok := root.Get(key); ok && string(bytes.TrimSpace(raw)) != "null" {
		var err error
		if servers, err = ParseObject(raw); err != nil {
			return nil, nil, agent.NotSettingsf("%q is not a JSON object (%v)", key, err)
		}
	}
	if _, ok := servers.Get(name); ok {
		out, err := Indent(root, indent)
		return out, nil, err
	}
	servers.Set(name, server)
	sb, err := servers.MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	root.Set(key, sb)
	out, err := Indent(root, indent)
	return out, []string{"mcp server " + name}, err
}

// Init is the change set of `gitguard init AGENT --write` for an agent
// whose hooks live in the JSON file rel below o.Dir, merged by merge: that
// file, and with o.MCP the gitguard MCP server added to the "mcpServers"
// of the JSON file mcpRel.
func Init(o agent.InitOptions, rel string, merge func(old []byte) ([]byte, []string, error), mcpRel string) ([]agent.Change, error) {
	c, err := agent.MergeFile(o.Dir, rel, merge)
	if err != nil {
		return nil, err
	}
	out := []agent.Change{c}
	if o.MCP {
		m, err := agent.MergeFile(o.Dir, mcpRel, func(old []byte) ([]byte, []string, error) {
			return MergeMCPServer(old, "mcpServers", "gitguard", MCPServer(o.MCPCommand))
		})
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// MergeWithMCP merges p into the settings old and, with o.MCP, the
// gitguard MCP server into the same file's "mcpServers", for an agent that
// reads both from one file.
func MergeWithMCP(old []byte, p Plan, o agent.InitOptions) ([]byte, []string, error) {
	out, added, err := Merge(old, p)
	if err != nil || !o.MCP {
		return out, added, err
	}
	out, more, err := MergeMCPServer(out, "mcpServers", "gitguard", MCPServer(o.MCPCommand))
	return out, append(added, more...), err
}
