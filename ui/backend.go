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
// run, else the most recently active one.
func (b *backend) pickRun(ctx context.Context, want record.RunID) (record.RunID, []gitguard.RunSummary, error) {
	var runs []gitguard.RunSummary
	err := b.do(func(g *gitguard.Guard) error {
		var err error
		runs, err = g.Runs(ctx)
		return err
	})
	if err != nil {
		return "", nil, err
	}
	if want != "" {
		for _, r := range runs {
			if r.ID == want {
				return want, runs, nil
			}
		}
		return "", runs, fmt.Errorf("run %q: %w", want, gitguard.ErrUnknownRun)
	}
	for _, r := range runs {
		if r.Active {
			return r.ID, runs, nil
		}
	}
	if len(runs) == 0 {
		return "", nil, gitguard.ErrNoRun
	}
	return runs[0].ID, runs, nil
}
