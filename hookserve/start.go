package hookserve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gitguard/gitguard"
)

// StartOptions configure StartDaemon.
type StartOptions struct {
	// Program is the gitguard command to start, as `Program -C DIR watch
	// --idle DURATION`: a file name, or a name looked up in PATH (git-guard
	// under git, a test's stand-in). "" means the running executable,
	// which must then be gitguard.
	Program string
	// Idle is how long the daemon waits for a request before it stops by
	// itself; 0 means never.
	Idle time.Duration
}

// StartTimeout is how long StartDaemon waits for the daemon it started to
// answer.
const StartTimeout = 10 * time.Second

// StartDaemon starts the watch daemon of g's work tree in the background,
// in a session of its own (a terminal's signals and the end of the agent's
// hook do not reach it), logging to daemon.log beside its socket (under
// .git/gitguard/watch/), and returns its status once it answers. A daemon
// already serving is left as it is. It returns gitguard.ErrNoWatcher
// (wrapped) where the platform or the file system offers no watcher. It
// writes nothing but the log file and the daemon's own state.
func StartDaemon(ctx context.Context, g *gitguard.Guard, o StartOptions) (gitguard.DaemonStatus, error) {
	if st, err := g.WatchStatus(ctx, false); err == nil {
		return st, nil
	}
	st, err := start(ctx, g, o)
	if err != nil {
		return gitguard.DaemonStatus{}, fmt.Errorf("start watch daemon: %w", err)
	}
	return st, nil
}

func start(ctx context.Context, g *gitguard.Guard, o StartOptions) (gitguard.DaemonStatus, error) {
	if o.Idle < 0 {
		return gitguard.DaemonStatus{}, fmt.Errorf("negative idle time %s", o.Idle)
	}
	if err := g.WatchAvailable(); err != nil {
		return gitguard.DaemonStatus{}, err
	}
	self, err := program(o.Program)
	if err != nil {
		return gitguard.DaemonStatus{}, err
	}
	logDir := filepath.Dir(g.WatchSocket())
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return gitguard.DaemonStatus{}, err
	}
	// The log is gitguard's own: whatever else is found in its place (a
	// symlink that would have the log written through it, a fifo that
	// would block) is removed first.
	logPath := filepath.Join(logDir, "daemon.log")
	if fi, err := os.Lstat(logPath); err == nil && !fi.Mode().IsRegular() {
		_ = os.Remove(logPath)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return gitguard.DaemonStatus{}, err
	}
	defer logFile.Close()
	cmd := exec.Command(self, "-C", g.WorkTree(), "watch", "--idle", o.Idle.String())
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		return gitguard.DaemonStatus{}, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(StartTimeout); time.Now().Before(deadline); {
		if st, err := g.WatchStatus(ctx, false); err == nil {
			return st, nil
		}
		select {
		case err := <-exited:
			// Another daemon won the race for the lock: use that one.
			if st, serr := g.WatchStatus(ctx, false); serr == nil {
				return st, nil
			}
			return gitguard.DaemonStatus{}, fmt.Errorf("it exited (%w); see %s", err, logFile.Name())
		case <-ctx.Done():
			return gitguard.DaemonStatus{}, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return gitguard.DaemonStatus{}, fmt.Errorf("no answer after %s; see %s", StartTimeout, logFile.Name())
}

// program returns the file to start for name: name as PATH finds it, else
// the running executable.
func program(name string) (string, error) {
	if name != "" {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return os.Executable()
}
