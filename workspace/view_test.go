package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
	"github.com/google/go-cmp/cmp"
)

// TestViewIgnoresUnion: under a run's view a path is ignored only if both
// the start's rules and today's ignore it, whichever side a pattern, a
// negation or an ignored folder is on.
func TestViewIgnoresUnion(t *testing.T) {
	t.Parallel()
	stack := func(lines string) *ignoreStack {
		return (*ignoreStack)(nil).push(parseIgnore([]byte(lines), "", false))
	}
	tests := []struct {
		name       string
		start, now string
		path       string
		isDir      bool
		want       bool
	}{
		{"both ignore", "*.log\n", "*.log\n", "a.log", false, true},
		{"only today", "", "*\n", "a.txt", false, false},
		{"only the start", "*.txt\n", "", "a.txt", false, false},
		{"neither", "*.log\n", "*.o\n", "a.txt", false, false},
		{"today re-includes", "*.log\n", "*.log\n!keep.log\n", "keep.log", false, false},
		{"the start re-included", "*.log\n!keep.log\n", "*\n", "keep.log", false, false},
		{"folder both", "build/\n", "build/\n", "build", true, true},
		{"folder today only", "", "build/\n", "build", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := viewIgnores{now: stack(tt.now), start: stack(tt.start), split: true}
			name := filepath.Base(tt.path)
			if got := v.ignored(tt.path, name, tt.isDir); got != tt.want {
				t.Errorf("ignored(%s) = %v, want %v", tt.path, got, tt.want)
			}
			// Unsplit, today's rules alone decide.
			alone := viewIgnores{now: stack(tt.now)}
			if got, want := alone.ignored(tt.path, name, tt.isDir), stack(tt.now).ignored(tt.path, name, tt.isDir); got != want {
				t.Errorf("unsplit ignored(%s) = %v, want today's %v", tt.path, got, want)
			}
			// Entering an ignored folder: everything in it is ignored only
			// if both sides ignore the folder.
			if tt.isDir {
				in := v.enter(tt.path, name)
				if got := in.ignored(tt.path+"/x", "x", false); got != tt.want {
					t.Errorf("ignored(%s/x) = %v, want %v", tt.path, got, tt.want)
				}
			}
		})
	}
}

func recordView(o *Options) { o.RecordView = true }

// viewRepo is a repository with a .gitignore, an ignored file and a
// tracked file, and an info/exclude.
func viewRepo(t *testing.T) *gittest.Repo {
	t.Helper()
	r := gittest.New(t)
	r.Write(".gitignore", "*.log\n")
	r.Write("a.txt", "a\n")
	r.Write("sub/b.txt", "b\n")
	r.Commit("init")
	r.Write("x.log", "ignored\n")
	return r
}

// TestViewNamesEveryInput: the view a snapshot records changes with each
// input that decides what gitguard sees, and only with those, and
// ViewChanges names the input.
func TestViewNamesEveryInput(t *testing.T) {
	r := viewRepo(t)
	ctx := context.Background()
	view := func() record.Hash {
		t.Helper()
		s, err := openWS(t, r.Dir, recordView).Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.View.IsZero() {
			t.Fatal("no view recorded")
		}
		return s.View
	}
	base := view()
	if again := view(); again != base {
		t.Fatalf("the view changed without a change: %s then %s", base, again)
	}
	r.Git("config", "user.name", "Someone Else")
	if again := view(); again != base {
		t.Fatalf("a key outside the view changed it")
	}
	excludes := filepath.Join(t.TempDir(), "ignore")
	gittest.WriteFile(t, excludes, "*.txt\n")
	steps := []struct {
		change func()
		want   []string
	}{
		{func() { r.Git("config", "gitguard.maxFileSize", "1") }, []string{"gitguard.maxFileSize"}},
		{func() { r.Write("sub/.gitignore", "b.txt\n") }, []string{"sub/.gitignore"}},
		{func() { r.Write(".gitignore", "*.log\n*.tmp\n") }, []string{".gitignore"}},
		{func() { gittest.WriteFile(t, filepath.Join(gitDir(t, r.Dir), "info", "exclude"), "*\n") }, []string{".git/info/exclude", "sub/.gitignore"}}, // sub is ignored now: its .gitignore is not read
		{func() { r.Git("config", "core.excludesFile", excludes) }, []string{"core.excludesFile"}},
		{func() { r.Git("update-index", "--skip-worktree", "a.txt") }, []string{"skip-worktree a.txt"}},
		{func() { r.Git("update-index", "--assume-unchanged", "sub/b.txt") }, []string{"assume-unchanged sub/b.txt"}},
		{func() { r.Git("update-index", "--no-skip-worktree", "a.txt") }, []string{"no skip-worktree a.txt"}},
		{func() { r.Git("config", "filter.blind.clean", "cat >/dev/null") }, []string{"filter.blind.clean"}},
		{func() { r.Git("config", "core.fileMode", "false") }, []string{"core.fileMode"}},
	}
	prev := base
	w := openWS(t, r.Dir)
	for _, st := range steps {
		st.change()
		now := view()
		if now == prev {
			t.Fatalf("%v: the view did not change", st.want)
		}
		got, err := w.ViewChanges(prev, now)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("ViewChanges (-want +got):\n%s", diff)
		}
		prev = now
	}
	if got, _ := w.ViewChanges(base, base); got != nil {
		t.Errorf("ViewChanges of a view with itself = %v", got)
	}
}

// TestFrozenViewSeesAsTheRunStarted: a workspace opened with a run's start
// view records what today's rules hide (info/exclude, .gitignore,
// core.excludesFile, skip-worktree) and converts with the filters of the
// start, while what both hide stays out.
func TestFrozenViewSeesAsTheRunStarted(t *testing.T) {
	r := viewRepo(t)
	ctx := context.Background()
	start, err := openWS(t, r.Dir, recordView).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	excludes := filepath.Join(t.TempDir(), "ignore")
	gittest.WriteFile(t, excludes, "*\n")
	gittest.WriteFile(t, filepath.Join(gitDir(t, r.Dir), "info", "exclude"), "*\n")
	r.Git("config", "core.excludesFile", excludes)
	r.Write(".gitignore", "*\n")
	r.Write("sub/.gitignore", "*\n")
	r.Git("update-index", "--skip-worktree", "a.txt")
	r.Git("config", "filter.blind.clean", "cat >/dev/null")
	r.Write(".gitattributes", "* filter=blind\n")
	r.Write("a.txt", "a edited\n")
	r.Write("new.txt", "new\n")
	r.Write("sub/new.txt", "sub new\n")
	r.Write("y.log", "still ignored\n")

	today, err := openWS(t, r.Dir, recordView).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	frozen := openWS(t, r.Dir, func(o *Options) { o.ViewStart = start.View })
	got, err := frozen.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.View != today.View {
		t.Errorf("the frozen workspace records the view it saw %s, today's is %s", got.View, today.View)
	}
	for p, want := range map[string]string{"a.txt": "a edited\n", "new.txt": "new\n", "sub/new.txt": "sub new\n", "sub/b.txt": "b\n"} {
		st, err := frozen.db.Lookup(got.Worktree, p)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Exists() {
			t.Errorf("%s not recorded under the run's view", p)
			continue
		}
		data, err := frozen.db.ReadAs(st.Hash, odb.TypeBlob)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != want {
			t.Errorf("%s recorded as %q, want %q", p, data, want)
		}
	}
	for _, p := range []string{"x.log", "y.log"} {
		if st, _ := frozen.db.Lookup(got.Worktree, p); st.Exists() {
			t.Errorf("%s recorded, though both the start's rules and today's ignore it", p)
		}
	}
	// Today's view alone hides them.
	for _, p := range []string{"new.txt", "sub/new.txt"} {
		if st, _ := frozen.db.Lookup(today.Worktree, p); st.Exists() {
			t.Errorf("%s recorded under today's view: the test changes nothing", p)
		}
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".gitattributes")); err != nil {
		t.Fatal(err)
	}
}
