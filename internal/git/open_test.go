package git_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// countGit counts the git processes started until the test ends.
func countGit(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	old := git.Logger
	git.Logger = slog.New(countHandler{&n})
	t.Cleanup(func() { git.Logger = old })
	return &n
}

type countHandler struct{ n *atomic.Int64 }

func (h countHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "git" {
		h.n.Add(1)
	}
	return nil
}
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countHandler) WithGroup(string) slog.Handler      { return h }

// oddConfig exercises git's config syntax: case rules, quoting, escapes,
// comments, multi-valued keys, a key without a value.
const oddConfig = `
[Core]
	autoCRLF = input
[branch "Feature/X"]
	remote = "quoted \"value\" ; not a comment" # a comment
	merge = refs/heads/a\tb
[alias]
	multi = one
	Multi = two
[gitguard]
	flag
[sec.tion]
	key = dotted
`

// Open finds the same repository and reads the same configuration as git
// in every layout, and the second time without starting git at all.
func TestOpenAgreesWithGit(t *testing.T) {
	defer git.SetRacyWindow(0)()
	r := gittest.New(t)
	r.Write("sub/dir/f.txt", "f\n")
	r.Commit("init")
	f, err := os.OpenFile(filepath.Join(r.Dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(oddConfig)
	f.Close()
	base := filepath.Dir(r.Dir)
	wt := filepath.Join(base, "linked")
	r.Git("worktree", "add", "-q", wt)
	r.Git("-C", wt, "config", "extensions.worktreeConfig", "true")
	r.Git("-C", wt, "config", "--worktree", "gitguard.only", "linked")
	inner := gittest.New(t)
	inner.Write("x.txt", "x\n")
	inner.Commit("sub")
	r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", inner.Dir, "modules/inner")
	nested := filepath.Join(r.Dir, "nested")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("-C", nested, "init", "-q")
	// A git dir whose core.worktree names another folder: git decides.
	elsewhere := filepath.Join(base, "elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(base, "moved")
	if err := os.MkdirAll(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("-C", moved, "init", "-q")
	r.Git("-C", moved, "config", "core.worktree", elsewhere)
	link := filepath.Join(base, "link")
	if err := os.Symlink(r.Dir, link); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, dir := range []string{r.Dir, filepath.Join(r.Dir, "sub", "dir"), filepath.Join(link, "sub"), wt,
		filepath.Join(wt, "sub"), filepath.Join(r.Dir, "modules", "inner"), nested, moved} {
		wantRepo, wantCfg, err := git.DiscoverWithConfig(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, pass := range []string{"first", "cached"} {
			spawned := countGit(t)
			gotRepo, gotCfg, err := git.Open(ctx, dir, os.Getenv)
			if err != nil {
				t.Fatalf("%s, %s: %v", dir, pass, err)
			}
			if *gotRepo != *wantRepo {
				t.Errorf("%s, %s: repo %+v, git says %+v", dir, pass, *gotRepo, *wantRepo)
			}
			if !reflect.DeepEqual(gotCfg, wantCfg) {
				t.Errorf("%s, %s: config\n%v\ngit says\n%v", dir, pass, gotCfg, wantCfg)
			}
			// The first open of a repository asks git config once; a
			// subfolder of one opened before, and any later open, none.
			if n := spawned.Load(); dir != moved && (n > 1 || (pass == "cached" && n != 0)) {
				t.Errorf("%s, %s: %d git processes", dir, pass, n)
			}
		}
	}
}

// A cached configuration is dropped as soon as any file git reads it from
// changes or appears; includes and a steering environment go to git every
// time; errors are git's.
func TestOpenConfigCacheFollowsChanges(t *testing.T) {
	defer git.SetRacyWindow(0)()
	r := gittest.New(t)
	r.Commit("init")
	ctx := context.Background()
	open := func(getenv func(string) string) (git.Config, int64) {
		t.Helper()
		spawned := countGit(t)
		_, cfg, err := git.Open(ctx, r.Dir, getenv)
		if err != nil {
			t.Fatal(err)
		}
		return cfg, spawned.Load()
	}
	open(os.Getenv)
	if _, n := open(os.Getenv); n != 0 {
		t.Fatalf("cached open started %d git processes", n)
	}
	r.Git("config", "core.autocrlf", "true")
	if cfg, _ := open(os.Getenv); !cfg.Bool("core.autocrlf", false) {
		t.Fatal("a changed repository config was not seen")
	}
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	if _, err := os.Stat(global); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the sealed global config exists already: %v", err)
	}
	gittest.WriteFile(t, global, "[user]\n\tname = Appeared\n")
	if cfg, _ := open(os.Getenv); cfg["user.name"][0] != "Appeared" {
		t.Fatalf("a global config that appeared was not seen: %v", cfg["user.name"])
	}
	inc := filepath.Join(t.TempDir(), "included")
	gittest.WriteFile(t, inc, "[gitguard]\n\tfrom = include\n")
	r.Git("config", "include.path", inc)
	for i := 0; i < 2; i++ {
		cfg, n := open(os.Getenv)
		if v, _ := cfg.Get("gitguard.from"); v != "include" || n == 0 {
			t.Fatalf("with an include: gitguard.from = %q after %d git processes, want git asked every time", v, n)
		}
	}
	steered := func(k string) string {
		if k == "GIT_CONFIG_PARAMETERS" {
			return "'gitguard.from'='command line'"
		}
		return os.Getenv(k)
	}
	if _, n := open(steered); n != 2 {
		t.Fatalf("steered by the environment: %d git processes, want discovery and config by git", n)
	}
	if _, _, err := git.Open(ctx, filepath.Join(r.Dir, ".git"), os.Getenv); !errors.Is(err, git.ErrNoWorkTree) {
		t.Fatalf("inside .git: %v, want ErrNoWorkTree", err)
	}
	if _, _, err := git.Open(ctx, t.TempDir(), os.Getenv); !errors.Is(err, git.ErrNotRepository) {
		t.Fatalf("outside any repository: %v, want ErrNotRepository", err)
	}
}

// A configuration changed a moment ago is cached once the window its file
// system's timestamps call for has passed: a tenth of a second where they
// carry fractions of a second, two seconds where they do not.
func TestOpenCachesSoonAfterAChange(t *testing.T) {
	r := gittest.New(t)
	r.Commit("init")
	r.Git("config", "gitguard.changed", "now")
	fi, err := os.Stat(filepath.Join(r.Dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	fine := fi.ModTime().Nanosecond() != 0
	time.Sleep(150 * time.Millisecond)
	ctx := context.Background()
	if _, _, err := git.Open(ctx, r.Dir, os.Getenv); err != nil {
		t.Fatal(err)
	}
	spawned := countGit(t)
	_, cfg, err := git.Open(ctx, r.Dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := cfg.Get("gitguard.changed"); v != "now" {
		t.Fatalf("gitguard.changed = %q", v)
	}
	if n := spawned.Load(); fine && n != 0 || !fine && n != 1 {
		t.Fatalf("second open 150 ms after the change (fractional times: %v) started %d git processes", fine, n)
	}
}

// TestOpenEnvConfig: configuration entries the environment gives git
// (GIT_CONFIG_COUNT, as Copilot CLI sets for its hooks) come after the
// files', as git reads them, and leave the files' configuration cached: a
// later Open starts no git. Entries git would refuse make Open ask git.
func TestOpenEnvConfig(t *testing.T) {
	defer git.SetRacyWindow(0)()
	r := gittest.New(t)
	r.Commit("init")
	r.Git("config", "gitguard.level", "file")
	t.Setenv("GIT_CONFIG_COUNT", "3")
	t.Setenv("GIT_CONFIG_KEY_0", "safe.bareRepository")
	t.Setenv("GIT_CONFIG_VALUE_0", "explicit")
	t.Setenv("GIT_CONFIG_KEY_1", "gitguard.level")
	t.Setenv("GIT_CONFIG_VALUE_1", "env")
	t.Setenv("GIT_CONFIG_KEY_2", "Branch.Main.Remote")
	t.Setenv("GIT_CONFIG_VALUE_2", "")
	ctx := context.Background()
	// What git itself reads, entries in order.
	_, want, err := git.DiscoverWithConfig(ctx, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for pass := range 2 {
		spawned := countGit(t)
		_, got, err := git.Open(ctx, r.Dir, os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("pass %d: Open's configuration\n%v\ngit's\n%v", pass, got, want)
		}
		if v, _ := got.Get("gitguard.level"); v != "env" {
			t.Errorf("pass %d: gitguard.level = %q, want the environment's", pass, v)
		}
		if n := spawned.Load(); pass == 1 && n != 0 {
			t.Errorf("the second Open started %d git processes, want the cache", n)
		}
	}
	if _, ok := git.FindRepo(r.Dir, os.Getenv); !ok {
		t.Errorf("FindRepo gave up on a repository with configuration from the environment")
	}
	// Entries git refuses fail Open as they fail git; an include is left to
	// git, which follows it. FindRepo gives up on both.
	for name, set := range map[string]func(t *testing.T){
		"count not a number": func(t *testing.T) { t.Setenv("GIT_CONFIG_COUNT", "x") },
		"key missing":        func(t *testing.T) { t.Setenv("GIT_CONFIG_KEY_1", "") },
		"key invalid":        func(t *testing.T) { t.Setenv("GIT_CONFIG_KEY_1", "gitguard.1level") },
		"no section":         func(t *testing.T) { t.Setenv("GIT_CONFIG_KEY_1", "level") },
	} {
		t.Run(name, func(t *testing.T) {
			set(t)
			if _, ok := git.FindRepo(r.Dir, os.Getenv); ok {
				t.Errorf("FindRepo went on where git refuses the environment")
			}
			if _, _, err := git.Open(ctx, r.Dir, os.Getenv); err == nil {
				t.Errorf("Open went on where git refuses the environment")
			}
		})
	}
	t.Run("an include", func(t *testing.T) {
		inc := filepath.Join(t.TempDir(), "included")
		gittest.WriteFile(t, inc, "[gitguard]\n\tfrom = include\n")
		t.Setenv("GIT_CONFIG_KEY_1", "include.path")
		t.Setenv("GIT_CONFIG_VALUE_1", inc)
		if _, ok := git.FindRepo(r.Dir, os.Getenv); ok {
			t.Errorf("FindRepo went on with an include in the environment")
		}
		spawned := countGit(t)
		_, cfg, err := git.Open(ctx, r.Dir, os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := cfg.Get("gitguard.from"); v != "include" || spawned.Load() == 0 {
			t.Errorf("gitguard.from = %q after %d git processes, want the included file's, from git", v, spawned.Load())
		}
	})
}
