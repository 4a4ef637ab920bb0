package kilo

import (
	"io"
	"path/filepath"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/opencode"
)

// Name is the agent's name in messages.
const Name = "Kilo CLI"

// HookCommand is the command the plugin runs.
const HookCommand = "gitguard hook kilo"

// Flavor is Kilo CLI as an opencode flavor.
var Flavor = opencode.Flavor{
	Name:      Name,
	HookName:  "kilo",
	RunPrefix: "kl-",
	PluginRel: filepath.Join(".kilo", "plugin", "gitguard.js"),
	Marker:    "// gitguard kilo plugin",
	ConfigRel: filepath.Join(".kilo", "kilo.json"),
}

// Read reads one plugin event from r.
func Read(r io.Reader, o agent.ReadOptions) (*agent.Event, error) { return Flavor.Read(r, o) }

// Fragment returns the plugin, to print.
func Fragment(o agent.InitOptions) ([]byte, error) { return Flavor.Fragment(o) }

// Init computes the changes "gitguard init kilo --write" makes: the plugin
// file, and with o.MCP the gitguard MCP server in .kilo/kilo.json.
func Init(o agent.InitOptions) ([]agent.Change, error) { return Flavor.Init(o) }
