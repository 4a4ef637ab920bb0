package attribution_test

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// killed is a repository with a run whose whole-workspace call "sh"
// started, wrote a.txt and died without recording its end.
type killed struct {
	t   *testing.T
	ctx context.Context
	r   *gittest.Repo
	g   *gitguard.Guard
	run record.RunID
	d   *gitguard.Daemon // nil without the watch daemon
}

func newKilled(t *testing.T, daemon bool) *killed {
	t.Helper()
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Write("e.txt", "e\n")
	r.Write("u.txt", "u\n")
	r.Commit("init")
	k := &killed{t: t, ctx: context.Background(), r: r}
	g, err := gitguard.Open(k.ctx, r.Dir, gitguard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	k.g = g
	if daemon {
		if runtime.GOOS != "linux" {
			t.Skip("no watch daemon on " + runtime.GOOS)
		}
		k.d = g.NewDaemon(nil)
		t.Cleanup(func() { k.d.Close() })
		if err := k.d.Snapshot(k.ctx); err != nil {
			t.Fatal(err)
		}
	}
	run, err := g.StartRun(k.ctx, "killed", gitguard.CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k.run = run.ID
	k.start("sh", nil)
	r.Write("a.txt", "a by sh\n")
	if k.d != nil {
		// The watcher reads events a moment after the writes; a snapshot
		// waits until it has read them all.
		if err := k.d.Snapshot(k.ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The process running sh dies here: its finish is never recorded.
	return k
}

func (k *killed) start(id record.CallID, paths []string) {
	k.t.Helper()
	if _, err := k.g.CallStart(k.ctx, k.run, gitguard.CallOptions{CallID: id, Tool: "Bash", Paths: paths}); err != nil {
		k.t.Fatal(err)
	}
}

// resume resumes the run and returns the killed call as recorded then.
func (k *killed) resume() *record.Call {
	k.t.Helper()
	if _, err := k.g.Resume(k.ctx, k.run, gitguard.ResumeOptions{}); err != nil {
		k.t.Fatal(err)
	}
	run, err := k.g.ReadRun(k.ctx, k.run)
	if err != nil {
		k.t.Fatal(err)
	}
	c := run.Calls["sh"]
	if c.Ledger.Status != record.StatusUncertain {
		k.t.Fatalf("sh is %s after resume, want uncertain", c.Ledger.Status)
	}
	return c
}

// patches lists the call's patches as "path" or "path?" for a guess.
func patches(c *record.Call) []string {
	var out []string
	for _, p := range c.Patches {
		s := p.Path
		if p.Guess != "" {
			s += "?"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// A killed call's window ends at the first evidence that it is over, and
// the evidence is recorded on its ledger entry: a later checkpoint of its
// run that looked at the work tree, or an event a caller saw (a later hook
// event of its session, a new session, the wrapped agent's exit). What
// the user wrote after the evidence (u.txt) is not the call's.
func TestKilledWindowEndsAtEvidence(t *testing.T) {
	for _, tc := range []struct {
		name     string
		kind     string
		evidence func(k *killed) int // records the evidence, returns its checkpoint number
	}{
		{"next call's start", record.EvidenceCheckpoint, func(k *killed) int {
			k.start("next", nil)
			run, err := k.g.ReadRun(k.ctx, k.run)
			if err != nil {
				k.t.Fatal(err)
			}
			return run.Calls["next"].Ledger.StartSeq
		}},
		{"later event of the session", record.EvidenceSessionEvent, closeOn(record.EvidenceSessionEvent)},
		{"new session", record.EvidenceNewSession, closeOn(record.EvidenceNewSession)},
		{"wrapped agent's exit", record.EvidenceAgentExit, closeOn(record.EvidenceAgentExit)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKilled(t, false)
			seq := tc.evidence(k)
			k.r.Write("u.txt", "u by the user\n")
			c := k.resume()
			w := c.Ledger.WindowEnd
			if w == nil || w.Kind != tc.kind || w.Seq != seq || w.At.IsZero() || !w.Bounded() {
				t.Fatalf("window end %+v, want %s at ckpt %d", w, tc.kind, seq)
			}
			if got := patches(c); !slices.Equal(got, []string{"a.txt"}) {
				t.Errorf("patches %v, want a.txt alone and no guess", got)
			}
			if c.Ledger.ChangesThrough != seq {
				t.Errorf("changes through %d, want %d", c.Ledger.ChangesThrough, seq)
			}
		})
	}
}

// closeOn records evidence of kind by closing the run's open calls.
func closeOn(kind string) func(k *killed) int {
	return func(k *killed) int {
		closed, err := k.g.CloseOpenCalls(k.ctx, k.run, gitguard.Evidence{Kind: kind, What: "test evidence " + kind})
		if err != nil {
			k.t.Fatal(err)
		}
		if !slices.Equal(closed, []record.CallID{"sh"}) {
			k.t.Fatalf("closed %v, want sh", closed)
		}
		run, err := k.g.ReadRun(k.ctx, k.run)
		if err != nil {
			k.t.Fatal(err)
		}
		return run.Checkpoint.Seq
	}
}

// With no evidence at all, resume's look ends the window: everything in
// it is only a guess, and so recorded.
func TestKilledWindowWithoutEvidenceIsAGuess(t *testing.T) {
	k := newKilled(t, false)
	k.r.Write("u.txt", "u by the user\n")
	c := k.resume()
	if w := c.Ledger.WindowEnd; w == nil || w.Kind != record.EvidenceNone || w.Bounded() {
		t.Fatalf("window end %+v, want none", w)
	}
	if got := patches(c); !slices.Equal(got, []string{"a.txt?", "u.txt?"}) {
		t.Errorf("patches %v, want a.txt and u.txt, both guesses", got)
	}
}

// The evidence that ends a shell call's window may look at other paths
// only (a call with declared paths starts). Without the watch daemon the
// state of the others then is unknown: what changed up to resume is a
// guess. With it, a path that changed after the evidence is not the
// call's, and one that did not is.
func TestKilledWindowEndsAtPartialEvidence(t *testing.T) {
	for _, daemon := range []bool{false, true} {
		name := "no daemon"
		if daemon {
			name = "daemon's change times"
		}
		t.Run(name, func(t *testing.T) {
			k := newKilled(t, daemon)
			k.start("edit", []string{"e.txt"})
			k.r.Write("u.txt", "u by the user\n")
			c := k.resume()
			run, err := k.g.ReadRun(k.ctx, k.run)
			if err != nil {
				t.Fatal(err)
			}
			w := c.Ledger.WindowEnd
			if w == nil || w.Kind != record.EvidenceCheckpoint || w.Seq != run.Calls["edit"].Ledger.StartSeq {
				t.Fatalf("window end %+v, want edit's start", w)
			}
			want := []string{"a.txt?", "u.txt?"}
			if daemon {
				want = []string{"a.txt"}
			}
			if got := patches(c); !slices.Equal(got, want) {
				t.Errorf("patches %v, want %v", got, want)
			}
			for _, p := range c.Patches {
				if p.Guess != "" && !strings.Contains(p.Guess, "did not look at this path") {
					t.Errorf("%s: guess %q does not say why", p.Path, p.Guess)
				}
			}
		})
	}
}
