package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agentTimeout bounds one agent session; a scripted one takes seconds to a
// few minutes (opencode, on a loaded machine).
const agentTimeout = 8 * time.Minute

// runAgent runs the agent CLI in the work tree and fails the test if it
// fails or hangs, showing its output and the model's request log.
func runAgent(t testing.TB, ws *workspace, m *model, env []string, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	if !filepath.IsAbs(name) {
		name = filepath.Join(cliBin, name)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = ws.dir, env
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || ctx.Err() != nil {
		m.mu.Lock()
		log := strings.Join(m.log, "\n")
		m.mu.Unlock()
		t.Fatalf("%s %s: %v\noutput:\n%s\nmodel requests:\n%s", name, strings.Join(args, " "), err, out, log)
	}
	if os.Getenv("GITGUARD_E2E_VERBOSE") == "1" {
		t.Logf("%s output:\n%s", name, out)
	}
}
