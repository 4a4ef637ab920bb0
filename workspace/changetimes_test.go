package workspace

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// The watcher knows when each path last changed, from its arming on; a
// replacing watcher takes the times over; a watcher that missed events
// knows nothing and passes nothing on.
func TestChangeTimes(t *testing.T) {
	ctx := context.Background()
	r := gittest.New(t)
	r.Write("a.txt", "a\n")
	r.Write("b.txt", "b\n")
	r.Commit("init")
	w := openWS(t, r.Dir)
	old := armedByWalk(t, w)

	r.Write("a.txt", "a2\n")
	ct, err := old.changeTimes(ctx, []string{"a.txt", "b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	ta, ok := ct.At["a.txt"]
	if !ok || ct.Since.IsZero() || ta.Before(ct.Since) {
		t.Fatalf("times %+v: want a.txt changed after since", ct)
	}
	if _, ok := ct.At["b.txt"]; ok {
		t.Errorf("b.txt has a time, but it did not change")
	}
	if !ct.Known(ta) || ct.Known(ct.Since.Add(-time.Second)) {
		t.Errorf("Known: wrong around since %v", ct.Since)
	}

	// A new watcher armed while the old one still watches inherits.
	next := armedByWalk(t, w)
	next.inheritTimes(old)
	ct2, err := next.changeTimes(ctx, []string{"a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !ct2.Since.Equal(ct.Since) || !ct2.At["a.txt"].Equal(ta) {
		t.Errorf("inherited %+v, want since %v and a.txt at %v", ct2, ct.Since, ta)
	}

	// One that missed events knows nothing, and passes nothing on.
	old.Fail(errors.New("queue overflowed"))
	if ct, err := old.changeTimes(ctx, []string{"a.txt"}); err != nil || !ct.Since.IsZero() || ct.At != nil {
		t.Errorf("broken watcher: %+v, %v; want nothing known", ct, err)
	}
	third := armedByWalk(t, w)
	third.inheritTimes(old)
	if ct, _ := third.changeTimes(ctx, []string{"a.txt"}); ct.Since.Before(ct2.Since) || ct.At["a.txt"].Equal(ta) {
		t.Errorf("inherited from a broken watcher: %+v", ct)
	}
}
