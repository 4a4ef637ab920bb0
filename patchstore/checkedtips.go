package patchstore

import (
	"sync"

	"github.com/gitguard/gitguard/record"
)

// checkedTips remembers the checkpoint commits checkTip passed. A commit
// names its tree, and its tree its records, by hash: a tip checked once is
// checked for good, and a command that reads a run twice (to decide, then
// again to commit on it) checks its tip once.
type checkedTips struct {
	mu   sync.Mutex
	m    map[record.Hash]bool
	runs int // checks run (for tests)
}

// maxCheckedTips bounds what a long-lived process remembers; past it the
// memory starts over.
const maxCheckedTips = 1024

func (c *checkedTips) has(h record.Hash) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[h]
}

func (c *checkedTips) add(h record.Hash) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCheckedTips {
		c.m = map[record.Hash]bool{}
	}
	c.m[h] = true
}

// checkTipOnce is checkTip for a tip not checked before.
func (s *Store) checkTipOnce(r *Run) error {
	if s.checked.has(r.Commit) {
		return nil
	}
	s.checked.mu.Lock()
	s.checked.runs++
	s.checked.mu.Unlock()
	if err := s.checkTip(r); err != nil {
		return err
	}
	s.checked.add(r.Commit)
	return nil
}
