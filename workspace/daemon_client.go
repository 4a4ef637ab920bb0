package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/gitguard/gitguard/internal/daemonwire"
	"github.com/gitguard/gitguard/record"
)

// This file is the client side of the watch daemon (daemon_server.go): the
// request and answer lines both sides speak, and the calls other gitguard
// processes make.

// ErrNoDaemon is returned by Workspace.DaemonStatus when no daemon serves
// the work tree (Snapshot then walks, silently).
var ErrNoDaemon = daemonwire.ErrNoDaemon

// DaemonSocket is the file name of the work tree's daemon socket.
func (w *Workspace) DaemonSocket() string { return daemonwire.Socket(w.repo.GitDir) }

// DaemonStatus is what a daemon says of itself.
type DaemonStatus struct {
	PID      int       `json:"pid"`
	WorkTree string    `json:"worktree"`
	Since    time.Time `json:"since"`
	Requests int64     `json:"requests"`
	Watched  int64     `json:"watched"` // answered from the watcher
	Walks    int64     `json:"walks"`   // answered by walking the tree
	Ops      int64     `json:"ops"`     // other requests answered (agent hook events)
	LastWalk string    `json:"last_walk,omitempty"`
}

// ErrDaemonRefused wraps the reason a daemon gave for not answering an op
// registered with Daemon.Handle (daemonwire.Ask is the client side).
var ErrDaemonRefused = daemonwire.ErrRefused

type daemonRequest struct {
	V           int      `json:"v"`
	Op          string   `json:"op"` // snapshot, status, stop
	WorkTree    string   `json:"worktree,omitempty"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	Paths       []string `json:"paths,omitempty"` // times: the paths asked about
	// Payload is the request of an op registered with Daemon.Handle.
	Payload json.RawMessage `json:"payload,omitempty"`
}

type daemonAnswer struct {
	V        int           `json:"v"`
	Snapshot *Snapshot     `json:"snapshot,omitempty"`
	Via      string        `json:"via,omitempty"`
	Status   *DaemonStatus `json:"status,omitempty"`
	Times    *ChangeTimes  `json:"times,omitempty"`
	Error    string        `json:"error,omitempty"`
	// Payload is the answer of an op registered with Daemon.Handle.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Fingerprint identifies everything that decides what a snapshot of this
// workspace records: the repository, git's configuration and gitguard's
// options. A daemon answers only clients with the same fingerprint.
func (w *Workspace) Fingerprint() string {
	w.fpOnce.Do(func() {
		h := sha256.New()
		line := func(parts ...string) {
			for _, p := range parts {
				h.Write([]byte(strconv.Quote(p)))
				h.Write([]byte{' '})
			}
			h.Write([]byte{'\n'})
		}
		line("repo", w.repo.WorkTree, w.repo.GitDir, w.repo.CommonDir)
		keys := make([]string, 0, len(w.config))
		for k := range w.config {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			line(append([]string{"config", k}, w.config[k]...)...)
		}
		line("excludesFile", w.opts.ExcludesFile)
		line("attributesFile", w.opts.AttributesFile)
		line(append([]string{"exclude"}, w.opts.Exclude...)...)
		line("maxFileSize", strconv.FormatInt(w.opts.MaxFileSize, 10))
		line("conversion", strconv.FormatBool(w.autocrlf), w.attrSources.system, w.attrSources.global, w.attrSources.info,
			strconv.FormatBool(w.attrSources.unsureAll))
		w.fingerprint = hex.EncodeToString(h.Sum(nil))
	})
	return w.fingerprint
}

// askDaemon gets a snapshot from the work tree's daemon: this process's
// own when it serves one (see listening), else the one on the socket. It
// returns ErrNoDaemon, cheaply, when none listens.
func (w *Workspace) askDaemon(ctx context.Context) (*Snapshot, error) {
	var snap *Snapshot
	var via string
	if d := listeningDaemon(w.DaemonSocket()); d != nil {
		// This process's own daemon (see listening): asked directly. A
		// process shares one object database per repository, so the trees
		// it wrote are made durable with this workspace's own objects, by
		// the Sync before a ref names them, in the same round of flushes.
		snapped, how, db, err := d.snapshotFor(ctx, w.repo.WorkTree, w.Fingerprint())
		if err == nil && db != w.db {
			err = db.Sync()
		}
		if err != nil {
			return nil, fmt.Errorf("watch daemon: %w", err)
		}
		snap, via = snapped, how
	} else {
		var ans daemonAnswer
		err := w.callDaemon(ctx, daemonRequest{Op: "snapshot", WorkTree: w.repo.WorkTree, Fingerprint: w.Fingerprint()}, &ans)
		if err != nil {
			return nil, err
		}
		if ans.Error != "" {
			return nil, fmt.Errorf("watch daemon: %s", ans.Error)
		}
		if snap, via = ans.Snapshot, ans.Via; snap == nil {
			return nil, errors.New("watch daemon: answer without a snapshot")
		}
	}
	// The daemon wrote these trees; trust none that is missing
	// (a git gc --prune=now may have taken them before a ref named them).
	for _, tree := range []record.Hash{snap.Worktree, snap.IndexTree} {
		if !w.db.Has(tree) {
			return nil, fmt.Errorf("watch daemon: its tree %s is not in the object database", tree)
		}
	}
	w.log.Debug("snapshot from the watch daemon", "via", via)
	return snap, nil
}

// DaemonStatus asks the work tree's daemon for its status; stop also asks
// it to stop. It returns ErrNoDaemon when none runs.
func (w *Workspace) DaemonStatus(ctx context.Context, stop bool) (DaemonStatus, error) {
	req := daemonRequest{Op: "status"}
	if stop {
		req.Op = "stop"
	}
	var ans daemonAnswer
	if err := w.callDaemon(ctx, req, &ans); err != nil {
		return DaemonStatus{}, err
	}
	if ans.Error != "" || ans.Status == nil {
		return DaemonStatus{}, fmt.Errorf("watch daemon: %s", ans.Error)
	}
	return *ans.Status, nil
}

// SettleDaemon waits until the watch daemon of the work tree whose git
// directory is gitDir has done the work it answered requests before doing
// (an agent hook's tool use end, see Daemon.Later), so that what this
// process reads next includes it. It returns at once when no daemon runs
// (a bare repository has none), when this process runs it (its requests
// already wait), or with the daemon's error.
func SettleDaemon(ctx context.Context, gitDir string) error {
	socket := daemonwire.Socket(gitDir)
	if listeningDaemon(socket) != nil {
		return nil
	}
	var ans daemonAnswer
	err := daemonwire.Call(ctx, socket, daemonRequest{V: daemonwire.Protocol, Op: "settle"}, &ans)
	switch {
	case errors.Is(err, ErrNoDaemon):
		return nil
	case err != nil:
		return err
	case ans.Error != "" && ans.Error != `unknown op "settle"`:
		// A daemon of an earlier gitguard does no work after answering.
		return fmt.Errorf("watch daemon: %s", ans.Error)
	}
	return nil
}

func (w *Workspace) callDaemon(ctx context.Context, req daemonRequest, ans *daemonAnswer) error {
	req.V = daemonwire.Protocol
	if err := daemonwire.Call(ctx, w.DaemonSocket(), req, ans); err != nil {
		return err
	}
	if ans.V != daemonwire.Protocol {
		return fmt.Errorf("watch daemon: protocol version %d, want %d", ans.V, daemonwire.Protocol)
	}
	return nil
}

// ShareDaemon lets w use the watch daemon this process runs for other, a
// workspace of the same work tree opened with the same settings (a run's
// view reopens the workspace): w's snapshots take the daemon's only when
// it saw the view w sees, and w asks it when paths changed. It follows
// the daemon as it reopens and closes.
func (w *Workspace) ShareDaemon(other *Workspace) {
	if other == nil || other == w || other.repo.WorkTree != w.repo.WorkTree {
		return
	}
	if other.sharedDaemon != nil {
		other = other.sharedDaemon
	}
	w.sharedDaemon = other
}

// ownDaemon is the watch daemon this process runs for w, its own or the
// one it shares; nil for none.
func (w *Workspace) ownDaemon() *Daemon {
	if d := w.daemon.Load(); d != nil {
		return d
	}
	if o := w.sharedDaemon; o != nil {
		return o.daemon.Load()
	}
	return nil
}
