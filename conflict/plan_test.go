package conflict_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/record"
)

// blobs is an in-memory object database for plans: content by blob id.
type blobs map[record.Hash][]byte

func (b blobs) put(content string) record.State {
	if content == absent {
		return record.State{}
	}
	h := record.BlobHash([]byte(content))
	b[h] = []byte(content)
	return record.State{Mode: record.ModeFile, Hash: h}
}

func (b blobs) sources(t *testing.T) conflict.Sources {
	tmp := t.TempDir()
	return conflict.Sources{
		Load: func(h record.Hash) ([]byte, error) {
			data, ok := b[h]
			if !ok {
				return nil, fmt.Errorf("blob %s: not stored", h.Short())
			}
			return data, nil
		},
		Has: func(h record.Hash) bool { _, ok := b[h]; return ok },
		Merge: func(cur, base, other []byte, labels [3]string) ([]byte, int, error) {
			return git.MergeFile(context.Background(), tmp, cur, base, other, labels)
		},
	}
}

// absent marks a version in which the file does not exist.
const absent = "\x00absent"

func (b blobs) current(content string) conflict.Current {
	st := b.put(content)
	c := conflict.Current{State: st}
	if st.Exists() {
		c.Content = []byte(content)
	}
	return c
}

func patch(call string, before, after record.State) *record.FilePatch {
	return &record.FilePatch{Path: "f.txt", ToolCallID: record.CallID(call),
		BeforeHash: before.Hash, BeforeMode: before.Mode, AfterHash: after.Hash, AfterMode: after.Mode}
}

// mergeFile is the oracle: the git CLI's merge-file on three files, as a
// user would run it to take the agent's edit out (base = the agent's after,
// ours = current, theirs = the agent's before).
func mergeFile(t *testing.T, cur, after, before string, labels [3]string) (string, int) {
	t.Helper()
	key := [5]string{cur, after, before, labels[1], labels[2]}
	if r, ok := merged[key]; ok {
		return r.out, r.n
	}
	out, n := runMergeFile(t, cur, after, before, labels)
	merged[key] = mergeResult{out, n}
	return out, n
}

type mergeResult struct {
	out string
	n   int
}

// merged memoizes the oracle across the cases of one test binary.
var merged = map[[5]string]mergeResult{}

func runMergeFile(t *testing.T, cur, after, before string, labels [3]string) (string, int) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"cur": cur, "after": after, "before": before} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("git", "merge-file", "-p", "-L", labels[0], "-L", labels[1], "-L", labels[2], "cur", "after", "before")
	cmd.Dir = dir
	out, err := cmd.Output()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee) && ee.ExitCode() > 0 && ee.ExitCode() < 128:
		return string(out), ee.ExitCode()
	}
	t.Fatalf("git merge-file: %v", err)
	return "", 0
}

// oracleLabels are the labels want runs the oracle with.
var oracleLabels = [3]string{"current", "agent (c1)", "before c1"}

// prefetchMerges runs the oracle on every case of a table that needs it
// with one shell, one git merge-file per case, rather than one process
// start from Go per case, and memoizes the results for mergeFile. Each
// case is a before, after, cur triple as checkPlan takes them.
func prefetchMerges(t *testing.T, cases [][3]string) {
	t.Helper()
	dir := t.TempDir()
	var keys [][5]string
	seen := map[[5]string]bool{}
	for _, c := range cases {
		cur, a, b, ok := oracleInputs(c[0], c[1], c[2])
		if !ok {
			continue
		}
		key := [5]string{cur, a, b, oracleLabels[1], oracleLabels[2]}
		if _, ok := merged[key]; ok || seen[key] {
			continue
		}
		seen[key] = true
		d := filepath.Join(dir, strconv.Itoa(len(keys)))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{"cur": cur, "after": a, "before": b} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return
	}
	// The exit status goes beside the output: 0 clean, 1..127 the number of
	// conflicts, anything else a failure of git.
	script := `n=0; while [ "$n" -lt "$1" ]; do cd "$n" || exit 1; git merge-file -p -L "$2" -L "$3" -L "$4" cur after before >out; echo $? >code; cd ..; n=$((n+1)); done`
	cmd := exec.Command("sh", "-c", script, "sh", strconv.Itoa(len(keys)), oracleLabels[0], oracleLabels[1], oracleLabels[2])
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git merge-file loop: %v\n%s", err, out)
	}
	for i, key := range keys {
		d := filepath.Join(dir, strconv.Itoa(i))
		out, err := os.ReadFile(filepath.Join(d, "out"))
		if err != nil {
			t.Fatal(err)
		}
		code, err := os.ReadFile(filepath.Join(d, "code"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(string(code)))
		if err != nil || n < 0 || n >= 128 {
			t.Fatalf("git merge-file on case %d: exit status %q", i, code)
		}
		merged[key] = mergeResult{string(out), n}
	}
}

// oracleInputs returns the texts git merge-file is run on (ours, base,
// theirs) to undo before → after from cur, or false when the
// classification table alone decides.
func oracleInputs(before, after, cur string) (string, string, string, bool) {
	switch {
	case cur == after, cur == before, cur == absent:
		return "", "", "", false
	}
	// A created or deleted file edited since merges against empty text.
	b, a := before, after
	if b == absent {
		b = ""
	}
	if a == absent {
		a = ""
	}
	if bytes.IndexByte([]byte(cur+b+a), 0) >= 0 {
		return "", "", "", false
	}
	return cur, a, b, true
}

// want is what undoing one patch before → after should do to cur, derived
// from the classification table and, for a file someone else edited, from
// git merge-file itself.
func want(t *testing.T, before, after, cur string, markers bool) (conflict.State, conflict.Action, string) {
	t.Helper()
	switch {
	case cur == after && before == absent:
		return conflict.Applied, conflict.Delete, absent
	case cur == after && after == absent:
		return conflict.Applied, conflict.Recreate, before
	case cur == after:
		return conflict.Applied, conflict.Restore, before
	case cur == before:
		return conflict.Reapplyable, conflict.Skip, cur
	case cur == absent:
		return conflict.Conflicted, conflict.Conflict, cur
	}
	c, a, b, ok := oracleInputs(before, after, cur)
	if !ok { // binary: never merged
		return conflict.Conflicted, conflict.Conflict, cur
	}
	out, n := mergeFile(t, c, a, b, oracleLabels)
	switch {
	case n > 0 && !markers:
		return conflict.Conflicted, conflict.Conflict, cur
	case n > 0:
		return conflict.Conflicted, conflict.Conflict, out
	case before == absent && out == "":
		// Nothing of the file the agent created is left: it goes.
		return conflict.Merged, conflict.Merge, absent
	case out == cur:
		return conflict.Conflicted, conflict.Skip, cur
	}
	return conflict.Merged, conflict.Merge, out
}

func checkPlan(t *testing.T, b blobs, before, after, cur string, markers bool) {
	t.Helper()
	p := patch("c1", b.put(before), b.put(after))
	pl, err := conflict.PlanPath("f.txt", []*record.FilePatch{p}, b.current(cur), markers, b.sources(t))
	if err != nil {
		t.Fatalf("before %q after %q cur %q: %v", before, after, cur, err)
	}
	state, action, target := want(t, before, after, cur, markers)
	if pl.State != state || pl.Action != action {
		t.Errorf("before %q after %q cur %q markers %v: plan %s/%s (%s), want %s/%s",
			before, after, cur, markers, pl.State, pl.Action, pl.Reason, state, action)
		return
	}
	if class := conflict.Classify(p.Before(), p.After(), b.put(cur)); pl.State != class && (pl.State != conflict.Merged || class != conflict.Conflicted) {
		t.Errorf("plan state %s disagrees with Classify (%s)", pl.State, class)
	}
	if !pl.Writes() {
		if pl.Content != nil {
			t.Errorf("before %q after %q cur %q: a plan that writes nothing carries content %q", before, after, cur, pl.Content)
		}
		return
	}
	if target == absent {
		if pl.Target.Exists() || pl.Content != nil {
			t.Errorf("before %q after %q cur %q: want the file deleted, plan writes %v %q", before, after, cur, pl.Target, pl.Content)
		}
		return
	}
	if string(pl.Content) != target || pl.Target.Hash != record.BlobHash([]byte(target)) {
		t.Errorf("before %q after %q cur %q: plan writes %q (%s), want %q", before, after, cur, pl.Content, pl.Target.Hash.Short(), target)
	}
}

// TestPlanMatchesGit checks one-patch plans against the classification
// table and git merge-file, for every combination of a small set of
// versions (absent, empty, and texts whose hunks do or do not overlap).
func TestPlanMatchesGit(t *testing.T) {
	gittest.RequireGit(t)
	versions := []string{
		absent, "",
		"a\nb\nc\nd\ne\nf\n",
		"a\nB\nc\nd\ne\nf\n",        // the agent's edit, line 2
		"a\nb\nc\nd\ne\nF\n",        // a user edit far from it
		"a\nB2\nc\nd\ne\nf\n",       // a user edit on the same line
		"a\nB\nc\nd\ne\nF\n",        // both
		"a\nb\nc\nd\ne\nf\nextra\n", // appended
		"bin\x00ary\n",
	}
	var cases [][3]string
	for _, before := range versions {
		for _, after := range versions {
			if before == after {
				continue
			}
			for _, cur := range versions {
				cases = append(cases, [3]string{before, after, cur})
			}
		}
	}
	prefetchMerges(t, cases)
	b := blobs{}
	for _, c := range cases {
		before, after, cur := c[0], c[1], c[2]
		checkPlan(t, b, before, after, cur, false)
		if cur != before && cur != after {
			checkPlan(t, b, before, after, cur, true)
		}
	}
}

// TestPlanRandomEdits checks plans for random line edits by the agent and
// a user, seeded so that a failure repeats.
func TestPlanRandomEdits(t *testing.T) {
	gittest.RequireGit(t)
	rng := rand.New(rand.NewSource(1))
	lines := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("line %d", i)
		}
		return out
	}
	edit := func(in []string, who string) []string {
		out := append([]string(nil), in...)
		for k := rng.Intn(3) + 1; k > 0 && len(out) > 0; k-- {
			i := rng.Intn(len(out))
			switch rng.Intn(3) {
			case 0:
				out[i] = who + " " + out[i]
			case 1:
				out = append(out[:i], out[i+1:]...)
			default:
				out = append(out[:i], append([]string{who + " new"}, out[i:]...)...)
			}
		}
		return out
	}
	text := func(ls []string) string {
		if len(ls) == 0 {
			return ""
		}
		return strings.Join(ls, "\n") + "\n"
	}
	var cases [][3]string
	for i := 0; i < 150; i++ {
		base := lines(rng.Intn(30) + 1)
		agent := edit(base, "agent")
		user := edit(agent, "user")
		cases = append(cases, [3]string{text(base), text(agent), text(user)})
	}
	prefetchMerges(t, cases)
	b := blobs{}
	for i, c := range cases {
		checkPlan(t, b, c[0], c[1], c[2], i%2 == 0)
	}
}

// TestPlanChain undoes two patches of one path, newest first: the user's
// edit on top of both survives, and with no user edit the file is back to
// what it was before the first.
func TestPlanChain(t *testing.T) {
	gittest.RequireGit(t)
	b := blobs{}
	v0, v1, v2 := "a\nb\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nf\ng\n", "a\nB\nc\nd\ne\nF\ng\n"
	patches := []*record.FilePatch{patch("c1", b.put(v0), b.put(v1)), patch("c2", b.put(v1), b.put(v2))}
	pl, err := conflict.PlanPath("f.txt", patches, b.current(v2), false, b.sources(t))
	if err != nil || pl.Action != conflict.Restore || string(pl.Content) != v0 {
		t.Fatalf("undo both, no user edit: %s %q %v, want restore to %q", pl.Action, pl.Content, err, v0)
	}
	if got := fmt.Sprint(pl.Calls); got != "[c2 c1]" {
		t.Errorf("calls %s, want newest first [c2 c1]", got)
	}
	user := "a\nB\nc\nUSER\ne\nF\ng\n"
	pl, err = conflict.PlanPath("f.txt", patches, b.current(user), false, b.sources(t))
	wantText := "a\nb\nc\nUSER\ne\nf\ng\n"
	if err != nil || pl.Action != conflict.Merge || string(pl.Content) != wantText {
		t.Fatalf("undo both over a user edit: %s %q %v, want merge to %q", pl.Action, pl.Content, err, wantText)
	}
}

// TestPlanFolderNow: a folder where the agent left a file is conflicted
// and never written, in plans and in classification alike.
func TestPlanFolderNow(t *testing.T) {
	b := blobs{}
	p := patch("c1", b.put("a\n"), b.put("b\n"))
	cur := conflict.Current{IsDir: true}
	pl, err := conflict.PlanPath("f.txt", []*record.FilePatch{p}, cur, true, b.sources(t))
	if err != nil || pl.Action != conflict.Conflict || pl.State != conflict.Conflicted || pl.Writes() {
		t.Fatalf("folder now: %+v %v", pl, err)
	}
	if cur.Class(record.State{}, p.After()) != conflict.Conflicted {
		t.Error("a folder classifies as something other than conflicted")
	}
}

// TestPlanOversize: a patch whose before content was recorded by hash only
// is unrecoverable, and says so, rather than failing.
func TestPlanOversize(t *testing.T) {
	b := blobs{}
	before := record.State{Mode: record.ModeFile, Hash: record.BlobHash([]byte("huge"))} // never stored
	p := patch("c1", before, b.put("huge2"))
	p.Oversize = true
	pl, err := conflict.PlanPath("f.txt", []*record.FilePatch{p}, b.current("huge2"), false, b.sources(t))
	if err != nil || pl.Action != conflict.Unrecoverable || pl.Writes() {
		t.Fatalf("oversize: %+v %v", pl, err)
	}
}

// FuzzPlanPath plans the undo of one patch for arbitrary contents: it
// never panics, never plans to write what the oracle would not, and a plan
// that writes carries content whose id is its target.
func FuzzPlanPath(f *testing.F) {
	f.Add("a\nb\n", "a\nB\n", "a\nB\nc\n", false)
	f.Add("", "x\n", "y\n", true)
	f.Add("a\n", "a\n\x00", "b", false)
	f.Fuzz(func(t *testing.T, before, after, cur string, markers bool) {
		if before == after || !utf8Lines(before+after+cur) {
			t.Skip()
		}
		gittest.RequireGit(t)
		checkPlan(t, blobs{}, before, after, cur, markers)
	})
}

// utf8Lines keeps fuzzed contents to what line merges are about.
func utf8Lines(s string) bool { return len(s) < 4096 && !strings.Contains(s, "\r") }
