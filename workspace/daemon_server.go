package workspace

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gitguard/gitguard/internal/daemonwire"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// A Daemon owns a Watcher and hands out snapshots of the work tree: to its
// own process (Workspace.Snapshot goes through it once it is started) and
// to other gitguard processes of the same work tree over a unix socket in
// the worktree's state folder. Agent hooks and `gitguard call` commands run
// as separate processes; through a daemon their whole-workspace snapshots
// cost O(changed paths) instead of a walk of the tree.
//
// A daemon never answers from a watcher that cannot vouch for every change:
// it walks the whole tree instead, arming a new watcher as it goes, and
// answers with that. A client that finds no daemon, or one that does not
// answer, or one whose configuration differs from its own, walks itself.
// Only processes of the daemon's own user are answered, and clients talk
// only to a daemon of their own user.
type Daemon struct {
	mu       sync.Mutex // serialises snapshots: each one moves the watcher's base
	w        *Workspace // replaced when reopened; guarded by mu
	origin   *Workspace // the one NewDaemon was called on
	log      *slog.Logger
	closed   bool // guarded by mu
	workTree string
	reopen   func() (*Workspace, error)
	wt       *Watcher

	ln       *net.UnixListener
	lock     *os.File
	sockPath string
	sockFile os.FileInfo // the socket as bound (see ownsSocket)
	stopOnce sync.Once
	stopped  chan struct{}
	last     atomic.Int64 // unix nanoseconds of the last request

	inflight sync.WaitGroup // requests being answered; Serve waits for them
	// behind is held shared by the work requests left running after
	// their answers (Later); every later request but a status, and Close,
	// wait for that work.
	behind sync.RWMutex

	ops *daemonwire.Ops // what Handle registered

	requests, watched, walks atomic.Int64
	started                  time.Time
	lastWalk                 atomic.Value // string: why the last walk was needed
}

// ErrDaemonRunning is returned by Daemon.Listen when another daemon already
// serves the work tree.
var ErrDaemonRunning = errors.New("a gitguard watch daemon already serves this work tree")

// maxSocketPath is the longest file name a unix socket can be bound to.
const maxSocketPath = 107

// NewDaemon makes a daemon for w and routes w's own snapshots through it.
// reopen, if set, opens the workspace again with the configuration as it
// is now; the daemon calls it when a client's configuration differs from
// its own (the user changed .gitguard.toml or git config meanwhile).
// Call Listen and Serve to answer other processes too, and Close at the end.
func (w *Workspace) NewDaemon(reopen func() (*Workspace, error)) *Daemon {
	d := &Daemon{w: w, origin: w, log: w.log, workTree: w.repo.WorkTree, reopen: reopen, stopped: make(chan struct{}), started: time.Now(),
		ops: daemonwire.NewOps(ownOps...)}
	d.lastWalk.Store("")
	d.last.Store(time.Now().UnixNano())
	w.daemon.Store(d)
	return d
}

// ownOps are the requests the daemon answers itself; any other op is
// answered by what Handle registered.
var ownOps = []string{"snapshot", "status", "stop", "times", "settle"}

// Handle makes the daemon answer op with h besides snapshots: an agent
// hook hands its event to the daemon, which records it in its running
// process. Requests for an op are answered one at a time, and each counts
// as activity for the idle timer. Register before Serve. It panics when op
// is one of the daemon's own ops (snapshot, status, stop, times, settle).
func (d *Daemon) Handle(op string, h daemonwire.OpHandler) { d.ops.Handle(op, h) }

// Later runs fn beside the answer of the request in hand, so that the
// client need not wait for it: fn starts at once, and every request that
// comes after (but a status), and Close, waits until it has returned. A
// handler uses it for work whose outcome its answer does not carry. fn
// must neither ask this daemon anything over its socket nor call Settle.
func (d *Daemon) Later(fn func()) {
	d.behind.RLock()
	go func() {
		defer d.behind.RUnlock()
		defer func() {
			// As a handler's panic (daemonwire.Ops): said, not fatal.
			if r := recover(); r != nil {
				d.log.Error("watch daemon: work after an answer panicked", "panic", r, "stack", string(debug.Stack()))
			}
		}()
		fn()
	}()
}

// Settle waits until the work that requests left running (Later) is
// done. Other processes ask for it with SettleDaemon.
func (d *Daemon) Settle() {
	d.behind.Lock()
	defer d.behind.Unlock() // a barrier: nothing to do inside
}

// Snapshot returns the work tree as of now, from the watcher when it can
// vouch for every change, else from a full walk that arms a new watcher.
func (d *Daemon) Snapshot(ctx context.Context) (*Snapshot, error) {
	snap, _, db, err := d.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return snap, db.Sync()
}

// snapshot is Snapshot, the objects it wrote left to the caller to make
// durable: they are in db, the database of the workspace that took it.
func (d *Daemon) snapshot(ctx context.Context) (_ *Snapshot, via string, db *odb.DB, _ error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	db = d.w.db
	if d.closed {
		snap, err := d.w.snapshot(ctx, walkOptions{})
		return snap, "walk", db, err
	}
	start := time.Now()
	d.last.Store(start.UnixNano())
	d.requests.Add(1)
	var old *Watcher
	if d.wt != nil {
		snap, err := d.wt.Snapshot(ctx)
		if err == nil {
			d.watched.Add(1)
			d.log.Debug("watch daemon: snapshot from the watcher", "took", time.Since(start), "hashed", snap.Stats.Hashed)
			return snap, "watcher", db, nil
		}
		// Whatever went wrong (it cannot vouch, or its base trees were
		// pruned meanwhile), a walk that arms a new watcher is right.
		d.log.Info("watch daemon walks the work tree", "reason", err)
		d.lastWalk.Store(err.Error())
		// The old watcher watches on until the new one is armed, so that
		// the new one can take over its change times.
		defer d.wt.Close()
		old = d.wt
		d.wt = nil
	} else {
		d.lastWalk.Store("first snapshot")
	}
	d.walks.Add(1)
	wt, err := d.w.Watch(record.ZeroHash)
	if err != nil {
		d.log.Info("no file watcher; every snapshot walks", "err", err)
		snap, err := d.w.snapshot(ctx, walkOptions{})
		return snap, "walk", db, err
	}
	snap, err := d.w.SnapshotWatched(ctx, wt)
	if err != nil {
		wt.Close()
		return nil, "", nil, err
	}
	if old != nil {
		wt.inheritTimes(old)
	}
	d.wt = wt
	return snap, "walk", db, nil
}

// Listen takes the work tree's daemon lock and binds its socket. It
// returns ErrDaemonRunning when another daemon holds the lock.
//
// On platforms without a file watcher gitguard trusts (see Workspace.Watch)
// it returns ErrNoWatcher: a daemon there would walk for every request.
func (d *Daemon) Listen() error {
	if err := watchable(d.w.repo.WorkTree); err != nil {
		return fmt.Errorf("watch daemon: %w", err)
	}
	dir := d.w.cookieDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("watch daemon: %w", err)
	}
	path := d.w.DaemonSocket()
	if len(path) > maxSocketPath {
		return fmt.Errorf("watch daemon: socket name %s is longer than %d bytes", path, maxSocketPath)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "daemon.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("watch daemon: %w", err)
	}
	// The kernel drops the lock when the process dies, however it dies,
	// so a stale socket left by a killed daemon never blocks a new one.
	if err := lockStopping(lock, path); err != nil {
		lock.Close()
		if errors.Is(err, ErrDaemonRunning) {
			return err
		}
		return fmt.Errorf("watch daemon: lock: %w", err)
	}
	_ = os.Remove(path)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		lock.Close()
		return fmt.Errorf("watch daemon: %w", err)
	}
	ln.SetUnlinkOnClose(true)
	// Private to the user; a connection from another user in between is
	// refused by handle anyway.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		lock.Close()
		return fmt.Errorf("watch daemon: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		lock.Close()
		return fmt.Errorf("watch daemon: %w", err)
	}
	d.ln, d.lock, d.sockPath, d.sockFile = ln, lock, path, fi
	listening.Store(path, d)
	return nil
}

// socketCheck is how often a serving daemon makes sure its socket is still
// the one it bound (see ownsSocket).
var socketCheck = time.Minute

// ownsSocket reports whether the daemon's socket file is still the one it
// bound. It is not when the state folder was deleted (a clean-up of .git,
// say): no client can reach the daemon then, and the lock it holds is on
// a deleted file, so a new daemon starts beside it and binds a socket of
// its own at the same name.
func (d *Daemon) ownsSocket() bool {
	fi, err := os.Lstat(d.sockPath)
	return err == nil && os.SameFile(fi, d.sockFile)
}

// stoppingGrace is how long Listen waits for a daemon that is stopping
// (its socket is gone, it still holds the lock) to let go.
const stoppingGrace = 2 * time.Second

// lockStopping is lockOnce, waiting out a daemon that was asked to stop
// and is finishing (it removed its socket when it stopped listening and
// lets go of the lock when it closes): a `watch stop` followed at once by
// a new daemon finds the old one still there otherwise.
func lockStopping(lock *os.File, socket string) error {
	for deadline := time.Now().Add(stoppingGrace); ; {
		err := lockOnce(lock)
		if !errors.Is(err, ErrDaemonRunning) || time.Now().After(deadline) {
			return err
		}
		if _, serr := os.Lstat(socket); serr == nil {
			return err // it serves
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Serve answers requests until ctx ends, a client asks the daemon to stop,
// no request came for idle (zero: no limit), or its socket is no longer
// the one it bound (see ownsSocket). Listen must have succeeded.
func (d *Daemon) Serve(ctx context.Context, idle time.Duration) error {
	if d.ln == nil {
		return errors.New("watch daemon: Serve before Listen")
	}
	every := socketCheck
	if idle > 0 {
		every = max(min(idle/4, every), 10*time.Millisecond)
	}
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				d.Stop()
				return
			case <-d.stopped:
				return
			case <-tick.C:
				if !d.ownsSocket() {
					d.log.Info("watch daemon: its socket is gone or another daemon's; stopping", "socket", d.sockPath)
					d.Stop()
					return
				}
				if idle > 0 && time.Since(time.Unix(0, d.last.Load())) >= idle {
					d.log.Info("watch daemon idle; stopping", "idle", idle)
					d.Stop()
					return
				}
			}
		}
	}()
	for {
		conn, err := d.ln.AcceptUnix()
		if err != nil {
			select {
			case <-d.stopped:
				// A request being answered (the one that asked to stop,
				// say) gets its answer before the caller exits.
				d.inflight.Wait()
				return nil
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("watch daemon: %w", err)
		}
		d.inflight.Add(1)
		go func() {
			defer d.inflight.Done()
			d.handle(ctx, conn)
		}()
	}
}

// Stop makes Serve return; it is safe to call more than once.
func (d *Daemon) Stop() {
	d.stopOnce.Do(func() {
		close(d.stopped)
		if d.ln != nil {
			// Closing removes the socket file: not another daemon's.
			d.ln.SetUnlinkOnClose(d.ownsSocket())
			d.ln.Close()
		}
	})
}

// Close stops serving, removes the socket and the watches, and routes the
// workspace's snapshots back to full walks.
func (d *Daemon) Close() error {
	d.Stop()
	d.Settle()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.wt != nil {
		d.wt.Close()
		d.wt = nil
	}
	if d.lock != nil {
		d.lock.Close()
	}
	listening.CompareAndDelete(d.sockPath, d)
	d.closed = true
	d.origin.daemon.CompareAndSwap(d, nil)
	d.w.daemon.CompareAndSwap(d, nil)
	return nil
}

// Status reports the daemon's counters.
func (d *Daemon) Status() DaemonStatus {
	return DaemonStatus{PID: os.Getpid(), WorkTree: d.workTree, Since: d.started,
		Requests: d.requests.Load(), Watched: d.watched.Load(), Walks: d.walks.Load(), Ops: d.ops.Answered(),
		LastWalk: d.lastWalk.Load().(string)}
}

func (d *Daemon) handle(ctx context.Context, conn *net.UnixConn) {
	defer conn.Close()
	if uid, err := daemonwire.PeerUID(conn); err != nil || uid != os.Geteuid() {
		return // another user's process: no answer at all
	}
	var req daemonRequest
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a client that never asks
	if err := json.NewDecoder(bufio.NewReader(conn)).Decode(&req); err != nil {
		return
	}
	ans := d.answer(ctx, req)
	ans.V = daemonwire.Protocol
	_ = json.NewEncoder(conn).Encode(ans)
}

func (d *Daemon) answer(ctx context.Context, req daemonRequest) daemonAnswer {
	if req.V != daemonwire.Protocol {
		return daemonAnswer{Error: fmt.Sprintf("protocol version %d, want %d", req.V, daemonwire.Protocol)}
	}
	if req.Op != "status" {
		// What an earlier request left running is part of the state
		// this one reads.
		d.Settle()
	}
	switch req.Op {
	case "settle":
		return daemonAnswer{}
	case "status":
		st := d.Status()
		return daemonAnswer{Status: &st}
	case "stop":
		d.Stop()
		st := d.Status()
		return daemonAnswer{Status: &st}
	case "times":
		return d.answerTimes(ctx, req)
	case "snapshot":
	default:
		d.last.Store(time.Now().UnixNano())
		ans, ok := d.ops.Answer(ctx, daemonwire.OpRequest{V: req.V, Op: req.Op, WorkTree: req.WorkTree, Payload: req.Payload}, d.workTree, d.log)
		d.last.Store(time.Now().UnixNano())
		if ok {
			return daemonAnswer{Error: ans.Error, Payload: ans.Payload}
		}
		return daemonAnswer{Error: fmt.Sprintf("unknown op %q", req.Op)}
	}
	snap, via, db, err := d.snapshotFor(ctx, req.WorkTree, req.Fingerprint)
	if err == nil {
		// Another process builds on these trees: durable before it
		// hears of them.
		err = db.Sync()
	}
	if err != nil {
		return daemonAnswer{Error: err.Error()}
	}
	return daemonAnswer{Snapshot: snap, Via: via}
}

// snapshotFor is a snapshot for a client of workTree whose configuration
// has the fingerprint: an error when the daemon cannot snapshot as the
// client would.
func (d *Daemon) snapshotFor(ctx context.Context, workTree, fingerprint string) (*Snapshot, string, *odb.DB, error) {
	if workTree != d.workTree {
		return nil, "", nil, errors.New("another work tree")
	}
	if err := d.sameConfig(fingerprint); err != nil {
		return nil, "", nil, err
	}
	return d.snapshot(ctx)
}

// listening holds the daemons this process serves, by socket: a workspace
// opened in the same process (the daemon records agent hook events with
// workspaces of their own) asks its daemon directly rather than through
// the socket, its own trees needing no check for presence either.
var listening sync.Map // socket path -> *Daemon

func listeningDaemon(socket string) *Daemon {
	d, _ := listening.Load(socket)
	daemon, _ := d.(*Daemon)
	return daemon
}

// sameConfig makes sure the daemon snapshots as the client would: the same
// git configuration and gitguard options. When they differ it opens the
// workspace again (and walks on the next snapshot) if it can.
func (d *Daemon) sameConfig(fingerprint string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w.Fingerprint() == fingerprint {
		return nil
	}
	if d.reopen == nil {
		return errors.New("the daemon's configuration differs from the client's")
	}
	w, err := d.reopen()
	if err != nil {
		return fmt.Errorf("reopen the workspace: %w", err)
	}
	if w.Fingerprint() != fingerprint {
		return errors.New("the daemon's configuration differs from the client's")
	}
	d.log.Info("watch daemon reopened the workspace: its configuration changed")
	if d.wt != nil {
		d.wt.Close()
		d.wt = nil
	}
	// The process's own snapshots keep coming through the daemon, which now
	// takes them as configured today.
	d.w.daemon.CompareAndSwap(d, nil)
	d.origin.daemon.Store(d)
	w.daemon.Store(d)
	d.w = w
	return nil
}
