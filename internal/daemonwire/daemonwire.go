// Package daemonwire is how a process talks to a work tree's watch daemon:
// where its socket is, the request and answer lines, one call. It is kept
// apart from package workspace, which serves the socket, so that a client
// as small as the agent hook's (cmd/gitguard-hook) can speak it without
// the rest of gitguard. It does without package net, whose resolver makes
// a program built with cgo (go install's default where a C compiler is)
// load the C library at every start: a millisecond of a hook's few.
package daemonwire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Protocol is the version of the socket's request and answer lines; each
// carries it as "v", and a side that reads another refuses the line.
const Protocol = 1

// ErrNoDaemon is returned when no watch daemon serves the work tree.
var ErrNoDaemon = errors.New("no watch daemon serves this work tree")

// Socket is the file name of the daemon socket of the worktree whose git
// dir is gitDir.
func Socket(gitDir string) string {
	return filepath.Join(gitDir, "gitguard", "watch", "daemon.sock")
}

// OpRequest is a request for an op other layers register with the daemon
// (workspace's Daemon.Handle), such as an agent hook's event.
type OpRequest struct {
	V        int             `json:"v"`
	Op       string          `json:"op"`
	WorkTree string          `json:"worktree,omitempty"`
	Payload  json.RawMessage `json:"payload,omitempty"`
}

// OpAnswer is the daemon's answer to an OpRequest: Error when it did not
// do it.
type OpAnswer struct {
	V       int             `json:"v"`
	Error   string          `json:"error,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// ErrRefused wraps the reason a daemon gave for not answering an op.
var ErrRefused = errors.New("the watch daemon did not answer")

// Ask sends op with payload to the daemon of the work tree workTree,
// listening on socket, and returns its answer. It returns ErrNoDaemon,
// cheaply, when none listens, and ErrRefused (wrapped) when the daemon
// does not know the op, serves another work tree or its handler failed.
func Ask(ctx context.Context, socket, workTree, op string, payload json.RawMessage) (json.RawMessage, error) {
	var ans OpAnswer
	if err := Call(ctx, socket, OpRequest{V: Protocol, Op: op, WorkTree: workTree, Payload: payload}, &ans); err != nil {
		return nil, err
	}
	if ans.V != Protocol {
		return nil, fmt.Errorf("watch daemon: protocol version %d, want %d", ans.V, Protocol)
	}
	if ans.Error != "" {
		return nil, fmt.Errorf("%w: %s", ErrRefused, ans.Error)
	}
	return ans.Payload, nil
}

// Timeout bounds one request: a daemon that walks a huge tree answers
// within it, a hung one is given up on.
const Timeout = 2 * time.Minute

// Call sends the request line req to the daemon listening on the socket
// path and decodes its answer line into ans. It returns ErrNoDaemon,
// cheaply, when none listens. The caller puts Protocol in req and checks
// it in ans.
func Call(ctx context.Context, path string, req, ans any) error {
	if err := CheckSocket(path); err != nil {
		return err
	}
	conn, err := dial(path)
	if err != nil {
		return err
	}
	defer conn.Close()
	if uid, err := PeerUID(conn); err != nil || uid != os.Geteuid() {
		return fmt.Errorf("watch daemon: %s is served by another user", path)
	}
	deadline := time.Now().Add(Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Now()) })
	defer stop()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return fmt.Errorf("watch daemon: %w", err)
	}
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(ans); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("watch daemon: %w", err)
	}
	return nil
}
