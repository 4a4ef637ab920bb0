package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The suite's shared state, set up once by TestMain.
var (
	// enabled is true when GITGUARD_E2E=1: the suite runs and anything
	// missing fails it.
	enabled = os.Getenv("GITGUARD_E2E") == "1"
	// gitguardBin is the gitguard executable built from this module.
	gitguardBin string
	// cliBin is the folder with the installed agent CLIs' executables.
	cliBin string
	// setupErr is why the suite could not be set up.
	setupErr error
)

func TestMain(m *testing.M) {
	if !enabled {
		// Each test skips too, so that go test -v lists them as skipped.
		fmt.Fprintln(os.Stderr, "e2e: SKIPPED: the real agent CLIs (Claude Code, Codex, Gemini CLI, opencode, Qwen Code, Copilot CLI, Kilo CLI) were not run;"+
			" set GITGUARD_E2E=1 to install them from npm (about 1.4 GB, cached) and run them against scripted model servers")
		os.Exit(m.Run())
	}
	tmp, err := os.MkdirTemp("", "gitguard-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	setupErr = setup(tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func setup(tmp string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("git is required: %w", err)
	}
	if bin := os.Getenv("GITGUARD_E2E_GITGUARD"); bin != "" {
		// A gitguard built elsewhere (say, from another revision).
		gitguardBin = bin
		return installAgents()
	}
	gitguardBin = filepath.Join(tmp, "bin", "gitguard")
	if runtime.GOOS == "windows" {
		gitguardBin += ".exe"
	}
	// gitguard-hook beside it: gitguard init installs it as the agents' hook.
	build := exec.Command("go", "build", "-o", filepath.Dir(gitguardBin)+string(filepath.Separator),
		"github.com/gitguard/gitguard/cmd/gitguard", "github.com/gitguard/gitguard/cmd/gitguard-hook")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build gitguard: %w\n%s", err, out)
	}
	return installAgents()
}

func installAgents() error {
	bin, err := installCLIs(context.Background(), func(f string, a ...any) { fmt.Fprintf(os.Stderr, "e2e: "+f+"\n", a...) })
	if err != nil {
		return fmt.Errorf("installing the agent CLIs from npm: %w", err)
	}
	cliBin = bin
	return nil
}

// requireSuite skips the test when the suite is off, and fails it when the
// suite is on but could not be set up.
func requireSuite(t testing.TB) {
	t.Helper()
	if !enabled {
		t.Skip("GITGUARD_E2E is not 1: the real agent CLIs are not run")
	}
	if setupErr != nil {
		t.Fatalf("e2e setup: %v", setupErr)
	}
}

// cliVersion runs the agent's CLI with --version.
func cliVersion(t testing.TB, agent string, env []string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(cliBin, pins[agent].bin), "--version")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", pins[agent].bin, err, out)
	}
	v := strings.TrimSpace(string(out))
	if !strings.Contains(v, pins[agent].version) {
		t.Fatalf("%s --version says %q, want the pinned %s", pins[agent].bin, v, pins[agent].version)
	}
	return v
}
