package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"
)

// ErrNotFound is returned by LookPath-dependent functions when no git binary
// is on PATH.
var ErrNotFound = errors.New("git command not found on PATH")

// ExitError is a git command that ran and exited non-zero.
type ExitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *ExitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Sprintf("git %s: exit %d: %s", strings.Join(e.Args, " "), e.Code, msg)
}

// Logger receives one Debug record per git invocation. Nil discards.
var Logger *slog.Logger

// Cmd describes one git invocation.
type Cmd struct {
	Dir    string    // working directory; empty means the current one
	Args   []string  // arguments after "git"
	Stdin  io.Reader // optional
	Env    []string  // extra environment, appended to the process's
	Stdout io.Writer // optional; when nil the output is returned by Run
}

// Run runs git with args in dir and returns its standard output.
// A non-zero exit comes back as *ExitError.
func Run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return Cmd{Dir: dir, Args: args}.Run(ctx)
}

// Run runs the command. Standard output is returned unless c.Stdout is set.
func (c Cmd) Run(ctx context.Context) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", c.Args...)
	cmd.Dir = c.Dir
	// GIT_OPTIONAL_LOCKS=0: no git command gitguard runs may refresh the
	// user's index behind their back.
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	cmd.Env = append(cmd.Env, c.Env...)
	cmd.Stdin = c.Stdin
	var stdout, stderr bytes.Buffer
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	} else {
		cmd.Stdout = &stdout
	}
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	if Logger != nil {
		Logger.Debug("git", "args", c.Args, "dir", c.Dir, "took", time.Since(start))
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stdout.Bytes(), &ExitError{Args: c.Args, Code: ee.ExitCode(), Stderr: stderr.String()}
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrNotFound
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("git %s: %w", strings.Join(c.Args, " "), err)
	}
	return stdout.Bytes(), nil
}

// ExitCode returns the exit code of err if it is an *ExitError, else -1.
func ExitCode(err error) int {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return -1
}
