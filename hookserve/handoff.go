package hookserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/hookwire"
)

// ErrRefused wraps the reason a watch daemon gave for leaving a hook event
// to the hook: another work tree or environment, an event it does not
// record, or its recording failed. The hook then records the event itself.
var ErrRefused = gitguard.ErrDaemonRefused

// MaxPayload bounds a hook event (a write event holds the whole file
// content); a hook reads no more than this from stdin.
const MaxPayload = hookwire.MaxPayload

// Request is an agent hook event as a hook process hands it to the watch
// daemon.
type Request struct {
	// Agent is the adapter's name, as Agent.Name and `gitguard hook NAME`.
	Agent string
	// Event is the hook event as the agent wrote it.
	Event []byte
	// Dir is where the hook was asked to work (-C), absolute; "" means the
	// event's cwd.
	Dir string
	// FailClosed makes a failure block the tool use (exit 2).
	FailClosed bool
	// WorkspaceTools are more tools to record as whole-workspace calls.
	WorkspaceTools []string
}

// Answer is what the hook prints on stderr and the status it exits with.
type Answer struct {
	Stderr string
	Exit   int
}

// HandOff hands req to the watch daemon of the work tree containing dir,
// found from the file system alone: getenv is the hook's environment, as
// git would see it (nil finds no daemon). It returns gitguard.ErrNoDaemon
// when none serves the work tree (or finding it would take git: a
// GIT_DIR-like variable, an unusual layout) and ErrRefused (wrapped) when
// the daemon leaves the event to the hook: the caller then records it
// itself. It writes nothing.
func HandOff(ctx context.Context, dir string, getenv func(string) string, req Request) (Answer, error) {
	if getenv == nil {
		return Answer{}, gitguard.ErrNoDaemon
	}
	ans, err := hookwire.HandOff(ctx, dir, getenv, hookwire.Request{Agent: req.Agent, Event: json.RawMessage(req.Event),
		Dir: req.Dir, FailClosed: req.FailClosed, WorkspaceTools: req.WorkspaceTools, Env: hookwire.EnvKey()})
	if err != nil {
		if !errors.Is(err, gitguard.ErrNoDaemon) && !errors.Is(err, ErrRefused) {
			return Answer{}, fmt.Errorf("hand a hook event to the watch daemon: %w", err)
		}
		return Answer{}, err
	}
	return Answer{Stderr: ans.Stderr, Exit: ans.Exit}, nil
}
