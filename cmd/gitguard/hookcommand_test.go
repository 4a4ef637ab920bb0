package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookCommandFor: init names this program's hook command by name when
// PATH finds this very program, else by its absolute path; gitguard-hook
// only when it sits beside this program (the testscripts, where it does,
// show that case).
func TestHookCommandFor(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(self), "gitguard-hook")); err == nil {
		t.Fatalf("a gitguard-hook beside the test binary %s", self)
	}
	onPath := t.TempDir()
	if err := os.Symlink(self, filepath.Join(onPath, "gitguard")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir() // a gitguard on PATH that is another program
	if err := os.WriteFile(filepath.Join(other, "gitguard"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range agentSpecs {
		for _, c := range []struct{ path, want string }{
			{onPath, s.defaultCommand},
			{"/nonexistent", shellQuote(self) + strings.TrimPrefix(s.defaultCommand, "gitguard")},
			{other + string(filepath.ListSeparator) + onPath, shellQuote(self) + strings.TrimPrefix(s.defaultCommand, "gitguard")},
		} {
			getenv := func(k string) string {
				if k == "PATH" {
					return c.path
				}
				return ""
			}
			got := hookCommandFor(s, getenv)
			if got != c.want {
				t.Errorf("%s with PATH=%s: hook command %q, want %q", s.name, c.path, got, c.want)
			}
			if err := checkCommand(got, getenv); err != nil {
				t.Errorf("%s with PATH=%s: the command init chose does not run: %v", s.name, c.path, err)
			}
		}
	}
}

func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"tool": 0o755, "plain": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "PATH" {
			return "/nonexistent" + string(filepath.ListSeparator) + dir
		}
		return ""
	}
	for cmd, ok := range map[string]bool{
		"tool hook claude-code":                true,
		"'tool' x":                             true,
		`"tool" x`:                             true,
		filepath.Join(dir, "tool") + " x":      true,
		"'" + filepath.Join(dir, "tool") + "'": true,
		"plain x":                              false, // not executable
		"folder x":                             false,
		"missing x":                            false,
		filepath.Join(dir, "missing"):          false,
		"$HOME/bin/tool x":                     false, // needs a shell to tell
		"FOO=1 tool x":                         false,
		"~/bin/tool":                           false,
		"":                                     false,
	} {
		err := checkCommand(cmd, getenv)
		if (err == nil) != ok {
			t.Errorf("checkCommand(%q) = %v, want ok=%v", cmd, err, ok)
		}
		if err != nil && !errors.Is(err, errHookUnresolved) {
			t.Errorf("checkCommand(%q) = %v, not errHookUnresolved", cmd, err)
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
		"'/opt/my bin/gitguard-hook' claude-code":    "'/opt/my bin/gitguard' mcp",
		"'/opt/my bin/gitguard' hook codex":          "'/opt/my bin/gitguard' mcp",
	} {
		if got := mcpCommand(hook); got != want {
			t.Errorf("mcpCommand(%q) = %q, want %q", hook, got, want)
		}
	}
}
