package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/gitguard/gitguard/record"
)

// PathHasher is one `git hash-object -w --stdin-paths` fed while the caller
// is still finding paths, so git's work overlaps the caller's: Add queues a
// path, Wait returns the blob ids in the order of Add. Like HashPaths it
// does not fsync the objects. Safe for concurrent use.
type PathHasher struct {
	ctx  context.Context
	dir  string
	args []string // git's arguments

	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout bytes.Buffer
	stderr bytes.Buffer
	paths  []string
	err    error // the first failure to start or feed git
	start  time.Time
}

// NewPathHasher returns a hasher that starts git on the first Add.
func NewPathHasher(ctx context.Context, dir string) *PathHasher {
	return Filters{Dir: dir}.NewPathHasher(ctx)
}

// NewPathHasher is the package's NewPathHasher under f's configuration.
func (f Filters) NewPathHasher(ctx context.Context) *PathHasher {
	return &PathHasher{ctx: ctx, dir: f.Dir, args: f.args(hashArgs...)}
}

// Add queues path (relative to the hasher's folder).
func (h *PathHasher) Add(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.paths = append(h.paths, path)
	if h.err != nil {
		return
	}
	if h.cmd == nil {
		h.err = h.startLocked()
		if h.err != nil {
			return
		}
	}
	if _, err := io.WriteString(h.stdin, record.Quoted(path)+"\n"); err != nil {
		h.err = err
	}
}

var hashArgs = []string{"hash-object", "-w", "--stdin-paths"}

func (h *PathHasher) startLocked() error {
	cmd := exec.CommandContext(h.ctx, "git", h.args...)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	cmd.Stdout, cmd.Stderr = &h.stdout, &h.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	h.start = time.Now()
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return ErrNotFound
		}
		return err
	}
	h.cmd, h.stdin = cmd, in
	return nil
}

// Paths returns the paths queued so far, in order.
func (h *PathHasher) Paths() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.paths...)
}

// Wait ends git's input and returns the ids of the queued paths; nil when
// none was queued. On an error no id is returned (HashPaths or HashPath
// can then tell which path failed).
func (h *PathHasher) Wait() ([]Hash, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		if h.err != nil {
			return nil, fmt.Errorf("hash %d files: %w", len(h.paths), h.err)
		}
		return nil, nil
	}
	h.stdin.Close()
	err := h.cmd.Wait()
	if Logger != nil {
		Logger.Debug("git", "args", h.args, "dir", h.dir, "took", time.Since(h.start))
	}
	if err == nil {
		err = h.err
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = &ExitError{Args: h.args, Code: ee.ExitCode(), Stderr: h.stderr.String()}
		}
		return nil, fmt.Errorf("hash %d files: %w", len(h.paths), err)
	}
	lines := strings.Fields(h.stdout.String())
	if len(lines) != len(h.paths) {
		return nil, fmt.Errorf("hash %d files: git printed %d ids", len(h.paths), len(lines))
	}
	ids := make([]Hash, len(lines))
	for i, l := range lines {
		if ids[i], err = ParseHash(l); err != nil {
			return nil, fmt.Errorf("hash %s: %w", h.paths[i], err)
		}
	}
	return ids, nil
}
