package workspace

import (
	"context"
	"sync"
)

// pool runs tasks on at most n goroutines at once. Tasks may add tasks;
// Go never blocks, so a task queueing its children cannot deadlock.
//
// The goroutines are workers that take queued tasks until none is left,
// newest first (a walk goes depth first, holding few folders open), and
// a worker starts only when fewer than n run. A goroutine per task that
// waited its turn on a semaphore cost a whole-tree walk of 100,000 files
// some 15% more CPU than the walk itself: every task's goroutine was
// parked and woken, and the scheduler spun looking for work between them.
type pool struct {
	ctx context.Context
	n   int
	wg  sync.WaitGroup

	mu      sync.Mutex
	queue   []func() error
	running int // workers started and not yet returned
	err     error
}

func newPool(ctx context.Context, n int) *pool {
	return &pool{ctx: ctx, n: max(n, 1)}
}

// Go queues f. After the first error, queued tasks are dropped.
func (p *pool) Go(f func() error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	p.queue = append(p.queue, f)
	if p.running < p.n {
		p.running++
		p.wg.Add(1)
		go p.work()
	}
}

// work runs queued tasks until the queue is empty or a task failed.
func (p *pool) work() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		if p.err == nil {
			if err := p.ctx.Err(); err != nil {
				p.err = err
			}
		}
		if len(p.queue) == 0 || p.err != nil {
			p.queue = nil
			p.running--
			p.mu.Unlock()
			return
		}
		f := p.queue[len(p.queue)-1]
		p.queue[len(p.queue)-1] = nil
		p.queue = p.queue[:len(p.queue)-1]
		p.mu.Unlock()
		if err := f(); err != nil {
			p.fail(err)
		}
	}
}

func (p *pool) fail(err error) {
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
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
