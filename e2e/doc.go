// Package e2e runs the real agent CLIs (Claude Code, Codex, Gemini CLI,
// opencode, Qwen Code, Copilot CLI, Kilo CLI), installed from npm at pinned versions, against scripted model servers on
// 127.0.0.1, with gitguard's hooks installed the way a user installs them,
// and checks what gitguard recorded against git itself.
//
// The suite runs when GITGUARD_E2E=1 (as CI sets it); then a CLI that cannot
// be installed or started fails the suite. Without it every test skips and
// says so on stderr. See README.md in this folder.
package e2e
