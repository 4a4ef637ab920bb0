package workspace

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ChangeTimes are the times a watcher saw the work tree's paths change.
// Every change after Since raised an event the watcher recorded; At holds,
// for each path asked about that changed since then, the time of its last
// event (when the watcher read it: at most the event queue's delay after
// the write). A path not in At did not change after Since. A zero Since
// means nothing is known.
type ChangeTimes struct {
	Since time.Time            `json:"since"`
	At    map[string]time.Time `json:"at,omitempty"`
}

// Known reports whether the times cover everything after t.
func (ct ChangeTimes) Known(t time.Time) bool { return !ct.Since.IsZero() && !ct.Since.After(t) }

// maxTimedPaths bounds the watcher's memory of change times; past it the
// times start over (and are unknown before that moment).
const maxTimedPaths = 200_000

// noteEvent records that path rel changed at t; wt.mu is held.
func (wt *Watcher) noteEvent(rel string, t time.Time) {
	if wt.times == nil {
		wt.times = map[string]time.Time{}
	}
	if len(wt.times) >= maxTimedPaths {
		wt.times, wt.timesFrom = map[string]time.Time{}, t
	}
	wt.times[rel] = t
}

// timesSince is when the watcher's change times start to be complete (zero:
// never); wt.mu is held.
func (wt *Watcher) timesSince() time.Time {
	if wt.broken != nil || wt.armedAt.IsZero() {
		return time.Time{}
	}
	if !wt.timesFrom.IsZero() {
		return wt.timesFrom
	}
	return wt.armedAt
}

// changeTimes returns the watcher's times for paths, once every event that
// happened before the call has been read. A watcher that missed events
// (overflow, a failed watch) knows nothing.
func (wt *Watcher) changeTimes(ctx context.Context, paths []string) (ChangeTimes, error) {
	if err := wt.sync(ctx); err != nil {
		return ChangeTimes{}, err
	}
	wt.mu.Lock()
	defer wt.mu.Unlock()
	ct := ChangeTimes{Since: wt.timesSince()}
	if ct.Since.IsZero() {
		return ct, nil
	}
	for _, p := range paths {
		if t, ok := wt.times[p]; ok {
			if ct.At == nil {
				ct.At = map[string]time.Time{}
			}
			ct.At[p] = t
		}
	}
	return ct, nil
}

// inheritTimes takes over the change times of the watcher it replaces. The
// old one must have watched on until this one was armed, so that no change
// fell between them; one that missed events passes nothing on.
func (wt *Watcher) inheritTimes(old *Watcher) {
	old.mu.Lock()
	since, times := old.timesSince(), old.times
	old.mu.Unlock()
	wt.mu.Lock()
	defer wt.mu.Unlock()
	if since.IsZero() || wt.timesSince().IsZero() || !wt.timesFrom.IsZero() || len(times)+len(wt.times) >= maxTimedPaths {
		return
	}
	merged := make(map[string]time.Time, len(times)+len(wt.times))
	for p, t := range times {
		merged[p] = t
	}
	for p, t := range wt.times {
		if t.After(merged[p]) {
			merged[p] = t
		}
	}
	wt.times, wt.timesFrom = merged, since
}

// ChangeTimes asks the work tree's watch daemon (this process's, or the
// one listening on the socket) when each of paths last changed. It returns
// ErrNoDaemon when no daemon runs; with no watcher armed the times are
// empty (Since zero).
func (w *Workspace) ChangeTimes(ctx context.Context, paths []string) (ChangeTimes, error) {
	if d := w.ownDaemon(); d != nil {
		return d.changeTimes(ctx, paths)
	}
	if d := listeningDaemon(w.DaemonSocket()); d != nil && d.workTree == w.repo.WorkTree {
		return d.changeTimes(ctx, paths)
	}
	var ans daemonAnswer
	err := w.callDaemon(ctx, daemonRequest{Op: "times", WorkTree: w.repo.WorkTree, Paths: paths}, &ans)
	if err != nil {
		return ChangeTimes{}, err
	}
	if ans.Error != "" {
		return ChangeTimes{}, fmt.Errorf("watch daemon: %s", ans.Error)
	}
	if ans.Times == nil {
		return ChangeTimes{}, errors.New("watch daemon: answer without times")
	}
	return *ans.Times, nil
}

func (d *Daemon) changeTimes(ctx context.Context, paths []string) (ChangeTimes, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.wt == nil {
		return ChangeTimes{}, nil
	}
	return d.wt.changeTimes(ctx, paths)
}

// answerTimes serves a "times" request.
func (d *Daemon) answerTimes(ctx context.Context, req daemonRequest) daemonAnswer {
	if req.WorkTree != d.workTree {
		return daemonAnswer{Error: "another work tree"}
	}
	ct, err := d.changeTimes(ctx, req.Paths)
	if err != nil {
		return daemonAnswer{Error: err.Error()}
	}
	return daemonAnswer{Times: &ct}
}
