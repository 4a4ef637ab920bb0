// Package hookwire is what an agent hook process and the work tree's
// watch daemon say to each other when the hook hands its event over: the
// request, the answer, and the environment both must share. The daemon's
// side is package hookserve; the hook's is `gitguard hook AGENT`
// and the smaller cmd/gitguard-hook, which imports nothing else of
// gitguard's but this and package daemonwire.
package hookwire

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gitguard/gitguard/internal/daemonwire"
)

// Op is the daemon op that records an agent hook event.
const Op = "hook"

// MaxPayload bounds what a hook reads from stdin (a write event holds the
// whole file content); agent.MaxPayload is this.
const MaxPayload = 64 << 20

// Request is a hook event as the hook process hands it to the daemon.
type Request struct {
	Agent          string          `json:"agent"` // the agent's name, as in `gitguard hook NAME`
	Event          json.RawMessage `json:"event"`
	Dir            string          `json:"dir,omitempty"` // -C, absolute; empty: the event's cwd
	FailClosed     bool            `json:"fail_closed,omitempty"`
	WorkspaceTools []string        `json:"workspace_tools,omitempty"`
	Env            string          `json:"env"` // EnvKey of the hook's environment
}

// Answer is what the hook prints on stderr and the status it exits with.
type Answer struct {
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit"`
}

// EnvKey is the environment a daemon must share with a hook to record its
// events; the hook's own switches travel with the request.
func EnvKey() string {
	return daemonwire.EnvironmentKey("GITGUARD_FAIL_CLOSED", "GITGUARD_WATCH_IDLE", "GITGUARD_NO_DAEMON")
}

// HandOff asks the watch daemon of the work tree containing dir to record
// req. It returns daemonwire.ErrNoDaemon when none serves it and
// daemonwire.ErrRefused (wrapped) when the daemon leaves the event to the
// hook: the hook then records it itself.
func HandOff(ctx context.Context, dir string, getenv func(string) string, req Request) (Answer, error) {
	payload, err := json.Marshal(req)
	if err != nil {
		return Answer{}, err
	}
	out, err := daemonwire.AskIn(ctx, dir, getenv, Op, payload)
	if err != nil {
		return Answer{}, err
	}
	var ans Answer
	if err := json.Unmarshal(out, &ans); err != nil {
		return Answer{}, fmt.Errorf("the watch daemon's answer to a hook event is unreadable: %w", err)
	}
	return ans, nil
}
