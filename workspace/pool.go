package workspace

import (
	"context"
	"sync"
)

// pool runs tasks on at most n goroutines at once. Tasks may add tasks;
// Go never blocks, so a task queueing its children cannot deadlock.
type pool struct {
	ctx context.Context
	sem chan struct{}
	wg  sync.WaitGroup

	mu  sync.Mutex
	err error
}

func newPool(ctx context.Context, n int) *pool {
	return &pool{ctx: ctx, sem: make(chan struct{}, n)}
}

// Go queues f. After the first error, queued tasks are dropped.
func (p *pool) Go(f func() error) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case p.sem <- struct{}{}:
		case <-p.ctx.Done():
			p.fail(p.ctx.Err())
			return
		}
		defer func() { <-p.sem }()
		if p.failed() {
			return
		}
		if err := f(); err != nil {
			p.fail(err)
		}
	}()
}

func (p *pool) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

func (p *pool) failed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err != nil || p.ctx.Err() != nil
}

// Wait waits for every task and returns the first error.
func (p *pool) Wait() error {
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		return p.ctx.Err()
	}
	return p.err
}
