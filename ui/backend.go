package ui

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// errClosed is returned by a backend call made after the view has exited.
var errClosed = errors.New("the view has closed")

// backend serialises every use of the Guard: bubbletea runs commands on
// goroutines of its own, and a Guard is not safe for concurrent use.
type backend struct {
	mu     sync.Mutex
	g      *gitguard.Guard
	closed bool
}

func (b *backend) do(fn func(g *gitguard.Guard) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errClosed
	}
	return fn(b.g)
}

// close waits for the command in flight, if any, and refuses later ones,
// so the caller may close the Guard once it returns.
func (b *backend) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
}

// pickRun chooses the run to open: the one asked for, else the active
// run, else the newest run of this work tree (as Guard.PickRun), else the
// most recently active one of another work tree.
func (b *backend) pickRun(ctx context.Context, want record.RunID) (gitguard.RunPick, []gitguard.RunSummary, error) {
	var runs []gitguard.RunSummary
	err := b.do(func(g *gitguard.Guard) error {
		var err error
		runs, err = g.Runs(ctx)
		return err
	})
	if err != nil {
		return gitguard.RunPick{}, nil, err
	}
	if want != "" {
		for _, r := range runs {
			if r.ID == want {
				return gitguard.RunPick{ID: want}, runs, nil
			}
		}
		return gitguard.RunPick{}, runs, fmt.Errorf("run %q: %w", want, gitguard.ErrUnknownRun)
	}
	for _, r := range runs {
		if r.Active {
			return gitguard.RunPick{ID: r.ID}, runs, nil
		}
	}
	if len(runs) == 0 {
		return gitguard.RunPick{}, nil, gitguard.ErrNoRun
	}
	var pick gitguard.RunPick
	err = b.do(func(g *gitguard.Guard) error {
		var err error
		pick, err = g.PickRun(ctx, "")
		return err
	})
	if errors.Is(err, gitguard.ErrNoRun) {
		return gitguard.RunPick{ID: runs[0].ID}, runs, nil
	}
	return pick, runs, err
}
