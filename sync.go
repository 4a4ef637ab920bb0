package gitguard

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/internal/runsync"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// ErrDiverged is returned (after the report) by Fetch when a local run and
// the remote's copy have both moved on, and the local one was kept.
var ErrDiverged = runsync.ErrDiverged

// RefusedError is returned by Fetch when runs from the remote failed
// verification. They were not stored. It wraps record.ErrCorrupt.
type RefusedError struct {
	Remote string
	Runs   []FetchResult // Action == FetchRefused
}

func (e *RefusedError) Error() string {
	var parts []string
	for _, r := range e.Runs {
		parts = append(parts, r.Err.Error()) // names the run
	}
	return fmt.Sprintf("refused %d run(s) from %s: %s", len(e.Runs), e.Remote, strings.Join(parts, "; "))
}

// Unwrap lets errors.Is(err, record.ErrCorrupt) hold.
func (e *RefusedError) Unwrap() error { return record.ErrCorrupt }

// FetchAction is what Fetch did, or would do, with one remote run.
type FetchAction string

// Fetch actions.
const (
	FetchNew         = FetchAction(runsync.New)         // the run did not exist here
	FetchFastForward = FetchAction(runsync.FastForward) // the local run is an ancestor of the remote one
	FetchUpToDate    = FetchAction(runsync.UpToDate)
	FetchLocalAhead  = FetchAction(runsync.LocalAhead) // the remote run is an ancestor of the local one: kept
	FetchDiverged    = FetchAction(runsync.Diverged)   // neither contains the other: local kept
	FetchForced      = FetchAction(runsync.Forced)     // diverged, replaced because of Force
	FetchRefused     = FetchAction(runsync.Refused)    // failed verification: not stored
)

// FetchResult is one run of a fetch.
type FetchResult struct {
	Run    string // the run id, or the remote ref's name when it names no valid run
	Action FetchAction
	Remote record.Hash // the fetched tip
	Local  record.Hash // the local tip before the fetch; zero if none
	Err    error       // why it was refused, or why a diverged run was kept
}

// FetchOptions tunes Fetch.
type FetchOptions struct {
	// Force replaces diverged local runs with the remote ones (never the
	// worktree's active run).
	Force bool
	// DryRun fetches and verifies but changes no run ref.
	DryRun bool
	// Runs limits the fetch to these runs; nil means every run of the remote.
	Runs []record.RunID
}

// Fetch brings the runs of remote into this repository safely: it fetches
// them into a quarantine namespace, verifies each chain completely
// (patchstore.VerifyRun), then moves each good run's ref by compare-and-swap
// — creating it, fast-forwarding it, or, for a diverged run, keeping the
// local one unless opts.Force — and deletes the quarantine refs whatever
// happens. It writes no ref outside refs/agent-checkpoints/.
//
// It returns the report and, after applying what it could, a *RefusedError
// (wrapping record.ErrCorrupt) if some run was refused, else ErrDiverged
// if some diverged run was kept; gitrefs.ErrRemote if git could not fetch;
// gitrefs.ErrRefChanged if a local run moved while it was being updated.
func (g *Guard) Fetch(ctx context.Context, remote string, opts FetchOptions) (*FetchReport, error) {
	results, err := runsync.Fetch(ctx, g.store, g.refs, g.log, remote, opts.Force, opts.DryRun, opts.Runs...)
	rep := &FetchReport{Remote: remote, DryRun: opts.DryRun}
	var refused []FetchResult
	diverged := false
	for _, r := range results {
		fr := FetchResult{Run: r.Run, Action: FetchAction(r.Action), Remote: r.Remote, Local: r.Local, Err: r.Err}
		rep.Results = append(rep.Results, fr)
		switch fr.Action {
		case FetchRefused:
			refused = append(refused, fr)
		case FetchDiverged:
			diverged = true
		}
	}
	switch {
	case err != nil && results == nil:
		return nil, err
	case err != nil:
		return rep, err
	case len(refused) > 0:
		return rep, &RefusedError{Remote: remote, Runs: refused}
	case diverged:
		return rep, fmt.Errorf("fetch from %s: %w", remote, ErrDiverged)
	}
	return rep, nil
}

// FetchReport is the outcome of Fetch, one result per remote run ref,
// sorted by ref name.
type FetchReport struct {
	Remote  string
	DryRun  bool
	Results []FetchResult
}

// ErrBadSyncConfig is returned for a gitguard.remote or gitguard.pushBatch
// value in git config that gitguard cannot use.
var ErrBadSyncConfig = gitrefs.ErrBadConfig

// ErrNoSuchRun is returned by Push for a run it was asked to push that does
// not exist here.
var ErrNoSuchRun = gitrefs.ErrNoSuchRun

// MaxPushBatch bounds PushOptions.Batch.
const MaxPushBatch = gitrefs.MaxPushBatch

// DefaultRemote is the remote runs go to and come from when neither the
// command nor gitguard.remote names one.
const DefaultRemote = "origin"

// SyncRemote returns the remote a push or fetch uses: remote when given,
// else gitguard.remote from git config (a repository for runs only), else
// DefaultRemote. It returns ErrBadSyncConfig for an unusable setting.
func (g *Guard) SyncRemote(ctx context.Context, remote string) (string, error) {
	if remote != "" {
		return remote, nil
	}
	c, err := g.refs.ReadSyncConfig(ctx)
	if err != nil {
		return "", err
	}
	if c.Remote != "" {
		return c.Remote, nil
	}
	return DefaultRemote, nil
}

// ConfiguredRemote returns gitguard.remote from git config, or "" when it
// is not set. It returns ErrBadSyncConfig for an unusable setting.
func (g *Guard) ConfiguredRemote(ctx context.Context) (string, error) {
	c, err := g.refs.ReadSyncConfig(ctx)
	return c.Remote, err
}

// Push sends runs of this repository to remote (see gitrefs.Store.Push),
// in batches of opts.Batch refs, or gitguard.pushBatch from git config
// when opts.Batch is 0. It returns ErrBadSyncConfig for an unusable
// setting, ErrNoSuchRun for a run in opts.Runs that does not exist here.
func (g *Guard) Push(ctx context.Context, remote string, opts PushOptions) ([]PushResult, error) {
	if opts.Batch == 0 {
		c, err := g.refs.ReadSyncConfig(ctx)
		if err != nil {
			return nil, err
		}
		opts.Batch = c.PushBatch
	}
	res, err := g.refs.Push(ctx, remote, gitrefs.PushOptions{Force: opts.Force, DryRun: opts.DryRun, Batch: opts.Batch, Runs: opts.Runs})
	return pushResults(res), err
}

func pushResults(res []gitrefs.PushResult) []PushResult {
	out := make([]PushResult, len(res))
	for i, r := range res {
		out[i] = PushResult{Ref: r.Ref, Status: PushStatus(r.Status), Summary: r.Summary,
			Local: r.Local, RemoteTip: r.RemoteTip, Message: r.Message}
	}
	return out
}

// PushOptions tune Push.
type PushOptions struct {
	// Force overwrites remote run refs that are not ancestors of the local
	// ones, but only those still at the tip Push read from the remote.
	Force bool
	// DryRun asks git what it would push, sending nothing.
	DryRun bool
	// Batch is the most run refs one git push carries; 0 means
	// gitguard.pushBatch from git config, else 100.
	Batch int
	// Runs limits the push to these runs; nil means every run.
	Runs []record.RunID
}

// PushResult is what happened to one run ref in a push.
type PushResult struct {
	Ref     string // local and remote name, e.g. refs/agent-checkpoints/runs/x
	Status  PushStatus
	Summary string // git's summary, e.g. "[rejected] (non-fast-forward)"
	// Local is the tip pushed; RemoteTip the remote's tip (zero when it
	// had no such run): before the push, or after it for a rejected run.
	Local, RemoteTip record.Hash
	// Message is the remote's own words when it declined the push.
	Message string
}

// PushStatus is what happened to one ref in a push: "new", "updated",
// "forced", "up-to-date", "rejected" (the remote's copy moved on),
// "declined" (the remote's own rule refused it) or "deleted".
type PushStatus string

// The push statuses.
const (
	PushNew      = PushStatus(gitrefs.PushNew)
	PushUpdated  = PushStatus(gitrefs.PushUpdated)
	PushForced   = PushStatus(gitrefs.PushForced)
	PushUpToDate = PushStatus(gitrefs.PushUpToDate)
	PushRejected = PushStatus(gitrefs.PushRejected) // the remote's copy moved on
	PushDeclined = PushStatus(gitrefs.PushDeclined) // the remote's rule refused it
	PushDeleted  = PushStatus(gitrefs.PushDeleted)
)

// RemoteRun is one run of a remote, listed without fetching it.
type RemoteRun struct {
	ID  record.RunID
	Tip record.Hash
	// HasSummary says whether the tip commit's summary was read; the
	// fields below are known only then (Calls and OpenCalls may still be
	// -1, State empty, for runs recorded by older writers).
	HasSummary bool
	StartedAt  time.Time
	LastAt     time.Time // the tip checkpoint's time
	Checkpoint string    // the tip checkpoint's id
	State      string    // "open" or "finished"
	Calls      int
	OpenCalls  int
	Origin     string // "<run> <commit>" for a run published with push --as
	Agent      string // the agent the run records, when its hooks said
}

// RemoteRuns lists the runs of remote without fetching their checkpoints:
// ids and tips from git ls-remote and, when the host serves partial
// fetches and summaries is set, each tip commit's summary (see
// gitrefs.Store.RemoteRuns). The second result says whether summaries were
// read. It writes nothing in this repository. It returns gitrefs.ErrRemote
// when git could not reach the remote.
func (g *Guard) RemoteRuns(ctx context.Context, remote string, summaries bool) ([]RemoteRun, bool, error) {
	l, err := g.refs.RemoteRuns(ctx, remote, summaries)
	if err != nil {
		return nil, false, err
	}
	out := make([]RemoteRun, 0, len(l.Runs))
	for _, r := range l.Runs {
		rr := RemoteRun{ID: r.ID, Tip: r.Tip, Calls: -1, OpenCalls: -1}
		if r.HasSummary {
			s := r.Summary
			rr.HasSummary, rr.StartedAt, rr.LastAt, rr.Checkpoint = true, s.StartedAt, r.Time, s.Checkpoint
			rr.State, rr.Calls, rr.OpenCalls, rr.Origin, rr.Agent = s.State, s.Calls, s.OpenCalls, s.Origin, s.Agent
		}
		out = append(out, rr)
	}
	return out, l.Summaries, nil
}

// ErrRunExists is returned by PublishAs when the new run id is taken here.
var ErrRunExists = patchstore.ErrRunExists

// PublishAs makes run as, a copy of run id as it stands here (every
// checkpoint again under the new id, naming id and its tip as its origin),
// and pushes that run alone to remote. It is how a run whose remote copy
// moved on meanwhile is published without overwriting either: the remote's
// run id stays theirs, yours arrives as a new run. Run id is not changed.
// It returns ErrUnknownRun, ErrRunExists (the new id is taken here), or
// what Push returns; the push results say whether the remote took it.
func (g *Guard) PublishAs(ctx context.Context, remote string, id, as record.RunID, opts PushOptions) ([]PushResult, error) {
	tip, err := runsync.PublishCopy(ctx, g.store, g.refs, id, as, opts.DryRun)
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		return []PushResult{{Ref: gitrefs.RunRef(as), Status: PushNew, Local: tip,
			Summary: "[copy of " + string(id) + "]"}}, nil
	}
	opts.Runs = []record.RunID{as}
	return g.Push(ctx, remote, opts)
}
