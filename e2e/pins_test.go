package e2e

// The agent CLIs under test, pinned to exact npm versions: an upgrade is a
// one-line change here, reviewed like any other.
var pins = map[string]npmPin{
	"claude-code": {pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude"},
	"codex":       {pkg: "@openai/codex", version: "0.171.0", bin: "codex"},
	"gemini":      {pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini"},
	"opencode":    {pkg: "opencode-ai", version: "1.18.33", bin: "opencode"},
}

type npmPin struct {
	pkg, version, bin string
}

// hooked says which agents gitguard records per tool call through hooks
// installed by 'gitguard init AGENT --write'. The others run under
// 'gitguard run --', the whole session as one call.
var hooked = map[string]bool{
	"claude-code": true,
	"codex":       true,
	"gemini":      true,
	"opencode":    true,
}
