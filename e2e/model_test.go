package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A step is one model turn: the scripted model answers it with exactly one
// tool call, so everything that changes between that answer and the next
// request is the tool's doing (and the hooks').
type step struct {
	name     string   // what the step does, for messages
	tool     string   // the agent's tool name
	args     any      // the tool's JSON arguments
	custom   string   // a free-form tool input (Codex custom tools) instead of args
	paths    []string // the paths the call changes, relative to the work tree
	fails    bool     // the tool reports a failure
	userEdit func(dir string) error
}

// callTruth is what git saw around one step's tool call: the state of each
// path (mode and blob id, or "absent") just before the model sent the call
// and when the next request arrived.
type callTruth struct {
	id            string
	before, after map[string]string
	isError       bool   // the agent reported the tool result as an error
	result        string // the tool result as the agent sent it back
	done          bool
}

// model is the scripted model behind every protocol: the number of tool
// results in a request says which turn it is, so retries and side requests
// do not move the script on.
type model struct {
	t     testing.TB
	dir   string
	steps []step
	final string

	mu      sync.Mutex
	truth   []callTruth
	edited  []bool
	sentAt  []time.Time
	gaps    []time.Duration // per step: from the end of its tool call answer to the next request
	log     []string
	toolReq int // main-loop requests seen
}

func newModel(t testing.TB, dir string, steps []step) *model {
	return &model{t: t, dir: dir, steps: steps, final: "All done.",
		truth: make([]callTruth, len(steps)), edited: make([]bool, len(steps)), sentAt: make([]time.Time, len(steps)),
		gaps: make([]time.Duration, len(steps))}
}

func (m *model) logf(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, fmt.Sprintf(format, args...))
}

// turn is called for a main-loop request carrying n tool results, the last
// of which (if any) is lastResult/lastErr. It returns the step to answer
// with, or nil for the closing text.
func (m *model) turn(n int, id func(int) string, lastResult string, lastErr bool) (*step, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.toolReq++
	if n > 0 && n <= len(m.steps) && !m.truth[n-1].done {
		tr := &m.truth[n-1]
		tr.after = m.states(m.steps[n-1].paths)
		tr.isError, tr.result, tr.done = lastErr, lastResult, true
		if !m.sentAt[n-1].IsZero() {
			m.gaps[n-1] = time.Since(m.sentAt[n-1])
		}
	}
	if n >= len(m.steps) {
		return nil, n
	}
	s := &m.steps[n]
	if s.userEdit != nil && !m.edited[n] {
		if err := s.userEdit(m.dir); err != nil {
			m.t.Errorf("user edit before step %d (%s): %v", n, s.name, err)
		}
		m.edited[n] = true
	}
	if m.truth[n].before == nil {
		m.truth[n].before = m.states(s.paths)
		m.truth[n].id = id(n)
	}
	return s, n
}

// sent marks the moment the answer with step n's tool call was written out.
func (m *model) sent(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n < len(m.sentAt) {
		m.sentAt[n] = time.Now()
	}
}

// states hashes paths with git: "MODE OID", or "absent".
func (m *model) states(paths []string) map[string]string {
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		out[p] = fileState(m.t, m.dir, p)
	}
	return out
}

func fileState(t testing.TB, dir, path string) string {
	full := filepath.Join(dir, filepath.FromSlash(path))
	fi, err := os.Lstat(full)
	if os.IsNotExist(err) {
		return "absent"
	}
	if err != nil {
		t.Errorf("stat %s: %v", path, err)
		return "error"
	}
	mode := "100644"
	if fi.Mode()&0o111 != 0 {
		mode = "100755"
	}
	oid, err := gitRun(dir, nil, "hash-object", "--", path)
	if err != nil {
		t.Errorf("%v", err)
		return "error"
	}
	return mode + " " + strings.TrimSpace(oid)
}

// results returns the truth for every step, failing the test for a step
// the agent never ran.
func (m *model) results(t testing.TB) []callTruth {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, tr := range m.truth {
		if !tr.done {
			t.Errorf("the agent never sent back the result of step %d (%s); requests:\n%s", i, m.steps[i].name, strings.Join(m.log, "\n"))
		}
	}
	return append([]callTruth(nil), m.truth...)
}

// toolGaps returns, per step, the time from the model's tool call to the
// agent's next request: the tool, the hooks around it and the CLI's own work.
func (m *model) toolGaps() []time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]time.Duration(nil), m.gaps...)
}
