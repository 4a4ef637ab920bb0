package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gitguard/gitguard/internal/daemonwire"
)

// Beyond snapshots, a daemon answers ops other layers register with
// Handle: an agent hook hands its event to the daemon, which records it in
// its running process, so the hook process does little more than start.
// daemonwire.Ask is the client side.

// OpHandler answers one request of an op registered with Daemon.Handle.
type OpHandler func(ctx context.Context, payload json.RawMessage) (json.RawMessage, error)

// Handle makes the daemon answer op with h. Requests for an op are
// answered one at a time, and each counts as activity for the idle timer.
// Register before Serve.
func (d *Daemon) Handle(op string, h OpHandler) {
	switch op {
	case "snapshot", "status", "stop", "times":
		panic("workspace: Daemon.Handle: " + op + " is the daemon's own op")
	}
	d.opsMu.Lock()
	defer d.opsMu.Unlock()
	if d.handlers == nil {
		d.handlers = map[string]*registeredOp{}
	}
	d.handlers[op] = &registeredOp{h: h}
}

type registeredOp struct {
	mu sync.Mutex // one request at a time
	h  OpHandler
}

func (d *Daemon) answerOp(ctx context.Context, req daemonRequest) (ans daemonAnswer, handled bool) {
	d.opsMu.Lock()
	op := d.handlers[req.Op]
	d.opsMu.Unlock()
	if op == nil {
		return daemonAnswer{}, false
	}
	if req.WorkTree != d.workTree {
		return daemonAnswer{Error: "another work tree"}, true
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	// A handler's bug costs its request, not the daemon: the client does
	// the work itself.
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("watch daemon: "+req.Op+" panicked", "panic", r, "stack", string(debug.Stack()))
			ans, handled = daemonAnswer{Error: fmt.Sprintf("%s failed: %v", req.Op, r)}, true
		}
	}()
	d.last.Store(time.Now().UnixNano())
	out, err := op.h(ctx, req.Payload)
	d.last.Store(time.Now().UnixNano())
	if err != nil {
		d.log.Info("watch daemon: "+req.Op+" refused", "err", err)
		return daemonAnswer{Error: err.Error()}, true
	}
	d.ops.Add(1)
	return daemonAnswer{Payload: out}, true
}

// ErrDaemonRefused wraps the reason a daemon gave for not answering an op
// (daemonwire.Ask is the client side).
var ErrDaemonRefused = daemonwire.ErrRefused
