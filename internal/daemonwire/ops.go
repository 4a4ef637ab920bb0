package daemonwire

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
)

// Beyond its own requests (snapshots, status), a daemon answers ops other
// layers register in its Ops: an agent hook hands its event to the daemon,
// which records it in its running process, so the hook process does
// little more than start. Ask is the client side.

// OpHandler answers one request of an op registered with Ops.Handle. Its
// error goes back to the client as the reason for the refusal
// (ErrRefused).
type OpHandler func(ctx context.Context, payload json.RawMessage) (json.RawMessage, error)

// Ops is what a daemon answers besides its own requests, by op name. It is
// safe for concurrent use; each op answers one request at a time.
type Ops struct {
	own []string // the daemon's own ops, which no handler may take

	mu       sync.Mutex
	handlers map[string]*registeredOp
	answered atomic.Int64
}

type registeredOp struct {
	mu sync.Mutex // one request at a time
	h  OpHandler
}

// NewOps returns an empty set of ops for a daemon whose own ops are named
// own.
func NewOps(own ...string) *Ops { return &Ops{own: own} }

// Handle makes the daemon answer op with h, in place of any handler
// registered for op before. Register before the daemon serves. It panics
// when op is one of the daemon's own: that is a bug in the caller, not
// bad input.
func (o *Ops) Handle(op string, h OpHandler) {
	if slices.Contains(o.own, op) {
		panic("daemonwire: Ops.Handle: " + op + " is the daemon's own op")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.handlers == nil {
		o.handlers = map[string]*registeredOp{}
	}
	o.handlers[op] = &registeredOp{h: h}
}

// Answer answers req on behalf of the daemon serving workTree; handled is
// false when no handler is registered for req.Op. A request for another
// work tree, a handler's error and a handler's panic are answered with an
// Error: a handler's bug costs its request, not the daemon, and the client
// does the work itself. log receives the refusals (nil discards).
func (o *Ops) Answer(ctx context.Context, req OpRequest, workTree string, log *slog.Logger) (ans OpAnswer, handled bool) {
	o.mu.Lock()
	op := o.handlers[req.Op]
	o.mu.Unlock()
	if op == nil {
		return OpAnswer{}, false
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if req.WorkTree != workTree {
		return OpAnswer{Error: "another work tree"}, true
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			log.Error("watch daemon: "+req.Op+" panicked", "panic", r, "stack", string(debug.Stack()))
			ans, handled = OpAnswer{Error: fmt.Sprintf("%s failed: %v", req.Op, r)}, true
		}
	}()
	out, err := op.h(ctx, req.Payload)
	if err != nil {
		log.Info("watch daemon: "+req.Op+" refused", "err", err)
		return OpAnswer{Error: err.Error()}, true
	}
	o.answered.Add(1)
	return OpAnswer{Payload: out}, true
}

// Answered is how many requests handlers answered without an error.
func (o *Ops) Answered() int64 { return o.answered.Load() }
