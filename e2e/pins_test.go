package e2e

// The agent CLIs under test, pinned to exact npm versions: an upgrade is a
// one-line change here, reviewed like any other.
var pins = map[string]npmPin{
	"claude-code": {pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude"},
	"codex":       {pkg: "@openai/codex", version: "0.171.0", bin: "codex"},
	"gemini":      {pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini"},
	"opencode":    {pkg: "opencode-ai", version: "1.18.33", bin: "opencode"},
	"qwen":        {pkg: "@qwen-code/qwen-code", version: "0.24.4", bin: "qwen"},
	"copilot":     {pkg: "@github/copilot", version: "1.0.102", bin: "copilot"},
	// 7.8.1 is the newest @kilocode/cli, but the registry serves its Linux
	// binary package (@kilocode/cli-linux-x64) only up to 7.7.7.
	"kilo": {pkg: "@kilocode/cli", version: "7.7.7", bin: "kilo"},
}

type npmPin struct {
	pkg, version, bin string
}
