package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// errRunMoved is returned when a confirmed write no longer does what the
// confirmation showed.
var errRunMoved = errors.New("the run changed since the plan was shown")

// ledgerMsg carries a run's calls, newest first.
type ledgerMsg struct {
	run   record.RunID
	pick  gitguard.RunPick // why run was opened
	runs  []gitguard.RunSummary
	tip   record.Hash
	calls []*record.Call
	err   error
}

// inspectedMsg carries the inspections of calls on screen.
type inspectedMsg struct {
	found map[record.CallID]*gitguard.CallInspection
	errs  map[record.CallID]error
	// markers is the markers setting a plan was made with (plans only).
	plan    bool
	markers bool
}

// confirmMsg carries the dry run of the write asked for.
type confirmMsg struct {
	asked *confirmation // the confirmation on screen when it was asked
	c     *confirmation // the same, with its plan
}

// wroteMsg carries the result of a confirmed write.
type wroteMsg struct {
	c   *confirmation
	res *gitguard.UndoResult
	err error
}

// tickMsg asks for a poll; polledMsg carries what the poll found.
type tickMsg struct{}

type polledMsg struct {
	runs  []gitguard.RunSummary
	found map[record.CallID]*gitguard.CallInspection
	err   error
}

// loadLedger reads the run's calls (picking a run when run is empty).
func (b *backend) loadLedger(ctx context.Context, run record.RunID) tea.Cmd {
	return func() tea.Msg {
		pick, runs, err := b.pickRun(ctx, run)
		id := pick.ID
		if err != nil {
			return ledgerMsg{runs: runs, err: err}
		}
		var calls []*record.Call
		var tip record.Hash
		err = b.do(func(g *gitguard.Guard) error {
			r, cs, err := g.Ledger(ctx, id)
			if err != nil {
				return err
			}
			tip = r.Commit
			calls = cs
			return nil
		})
		slices.Reverse(calls)
		return ledgerMsg{run: id, pick: pick, runs: runs, tip: tip, calls: calls, err: err}
	}
}

// inspect reads the given calls' states, patches and, with plan, undo plans.
func (b *backend) inspect(ctx context.Context, calls []*record.Call, plan, markers bool) tea.Cmd {
	return func() tea.Msg {
		m := inspectedMsg{found: map[record.CallID]*gitguard.CallInspection{}, errs: map[record.CallID]error{}, plan: plan, markers: markers}
		for _, c := range calls {
			err := b.do(func(g *gitguard.Guard) error {
				in, err := g.InspectCall(ctx, c, gitguard.InspectOptions{Plan: plan, Markers: markers})
				if err == nil {
					m.found[c.Ledger.CallID] = in
				}
				return err
			})
			if err != nil {
				m.errs[c.Ledger.CallID] = err
			}
		}
		return m
	}
}

// poll reads the run list (whose tips say whether the run moved) and the
// states of the calls on screen (which say whether the work tree moved).
func (b *backend) poll(ctx context.Context, calls []*record.Call) tea.Cmd {
	return func() tea.Msg {
		m := polledMsg{found: map[record.CallID]*gitguard.CallInspection{}}
		m.err = b.do(func(g *gitguard.Guard) error {
			var err error
			m.runs, err = g.Runs(ctx)
			return err
		})
		if m.err != nil {
			return m
		}
		for _, c := range calls {
			_ = b.do(func(g *gitguard.Guard) error {
				in, err := g.InspectCall(ctx, c, gitguard.InspectOptions{})
				if err == nil {
					m.found[c.Ledger.CallID] = in
				}
				return err
			})
		}
		return m
	}
}

func tick(d time.Duration) tea.Cmd {
	if d <= 0 {
		return nil
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{} })
}

// writeKind is what a confirmation would do.
type writeKind int

const (
	undoCall writeKind = iota // undo one call
	undoTo                    // undo a call and every newer one in effect
	redo                      // undo an undo
)

// confirmation is a write waiting for the user's yes, with its dry run.
type confirmation struct {
	kind  writeKind
	run   record.RunID
	call  *record.Call // the selected call
	opts  gitguard.UndoOptions
	plan  *gitguard.UndoResult
	err   error
	ready bool
}

// dryRun asks Undo or Redo what the confirmation would do, writing
// nothing. It works on a copy: the view keeps drawing c meanwhile.
func (b *backend) dryRun(ctx context.Context, c *confirmation) tea.Cmd {
	d := *c
	return func() tea.Msg {
		d.err = b.do(func(g *gitguard.Guard) error {
			if d.kind == undoTo {
				seq := d.call.Ledger.FinishSeq - 1
				en, err := g.ResolveCheckpoint(ctx, d.run, fmt.Sprintf("ckpt_%03d", seq))
				if err != nil {
					return err
				}
				d.opts.To = &en
			}
			o := d.opts
			o.DryRun = true
			var err error
			if d.kind == redo {
				d.plan, err = g.Redo(ctx, d.run, o)
			} else {
				d.plan, err = g.Undo(ctx, d.run, o)
			}
			return err
		})
		d.ready = true
		return confirmMsg{asked: c, c: &d}
	}
}

// write carries out a confirmed write. It is not cancelled by the view's
// context: an undo stopped half-way is safe but has to be run again, so a
// quit waits for it instead.
func (b *backend) write(ctx context.Context, c *confirmation) tea.Cmd {
	ctx = context.WithoutCancel(ctx)
	return func() tea.Msg {
		var res *gitguard.UndoResult
		err := b.do(func(g *gitguard.Guard) error {
			do := g.Undo
			if c.kind == redo {
				do = g.Redo
			}
			// The calls confirmed are the calls written: if the run moved
			// since the plan was shown (a new call, another undo), stop.
			o := c.opts
			o.DryRun = true
			again, err := do(ctx, c.run, o)
			if err != nil {
				return err
			}
			if !slices.Equal(again.Undone, c.plan.Undone) {
				return fmt.Errorf("%w: it would now undo %v, not %v as shown; look again and press the key again",
					errRunMoved, again.Undone, c.plan.Undone)
			}
			res, err = do(ctx, c.run, c.opts)
			return err
		})
		return wroteMsg{c: c, res: res, err: err}
	}
}
