package daemonwire

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
)

// AskIn is Ask for the work tree containing dir, found without starting
// git: a few stats. It returns ErrNoDaemon when no daemon serves it, and
// also when finding the repository would take git (a GIT_DIR-like
// variable is set, the layout is unusual).
func AskIn(ctx context.Context, dir string, getenv func(string) string, op string, payload json.RawMessage) (json.RawMessage, error) {
	repo, ok := git.FindRepo(dir, getenv)
	if !ok {
		return nil, ErrNoDaemon
	}
	return Ask(ctx, Socket(repo.GitDir), repo.WorkTree, op, payload)
}

// EnvironmentKey sums up the environment that decides how gitguard and git
// behave: git's and gitguard's variables (but for except), where
// configuration is found (HOME, XDG_CONFIG_HOME) and which git runs. Not
// PATH itself: an agent adds its own folders to it. A daemon takes the
// work of a process whose key equals its own.
func EnvironmentKey(except ...string) string {
	var vars []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(except, k):
		case strings.HasPrefix(k, "GIT_"), strings.HasPrefix(k, "GITGUARD_"), k == "HOME", k == "XDG_CONFIG_HOME":
			vars = append(vars, kv)
		}
	}
	slices.Sort(vars)
	vars = append(vars, "git="+git.Binary())
	sum := sha256.Sum256([]byte(strings.Join(vars, "\x00")))
	return hex.EncodeToString(sum[:])
}
