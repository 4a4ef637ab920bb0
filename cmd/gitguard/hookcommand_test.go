package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDefaultHookCommand: init installs gitguard-hook only when it sits
// beside this program (the testscripts, where it does, show that case).
func TestDefaultHookCommand(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(self), "gitguard-hook")); err == nil {
		t.Fatalf("a gitguard-hook beside the test binary %s", self)
	}
	for _, s := range agentSpecs {
		if got := defaultHookCommand(s); got != s.defaultCommand {
			t.Errorf("%s: default hook command %q without gitguard-hook beside, want %q", s.name, got, s.defaultCommand)
		}
	}
}

func TestMCPCommand(t *testing.T) {
	for hook, want := range map[string]string{
		"gitguard hook claude-code":                  "gitguard mcp",
		"/opt/bin/gitguard hook codex --fail-closed": "/opt/bin/gitguard mcp",
		"gitguard-hook gemini":                       "gitguard mcp",
		"/opt/bin/gitguard-hook claude-code":         "/opt/bin/gitguard mcp",
		"my-wrapper":                                 "gitguard mcp",
	} {
		if got := mcpCommand(hook); got != want {
			t.Errorf("mcpCommand(%q) = %q, want %q", hook, got, want)
		}
	}
}
