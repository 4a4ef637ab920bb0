package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

// benchRepo returns a repository to benchmark on: $GITGUARD_BENCH_REPO
// (for example one made by bench/gen) or a fresh one of 5000 files in
// folders of 50, 20 of them modified and 10 untracked.
func benchRepo(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("GITGUARD_BENCH_REPO"); dir != "" {
		return dir
	}
	r := gittest.New(b)
	for i := 0; i < 5000; i++ {
		r.Write(fmt.Sprintf("d%02d/s%02d/f%04d.txt", i/500, i/50%10, i), fmt.Sprintf("file %d\n", i))
	}
	r.Write(".gitignore", "/build/\n")
	// Files older than the index, so that no entry is racily clean.
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(r.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" {
			return cmpSkip(err, d)
		}
		if d.Type().IsRegular() {
			return os.Chtimes(p, old, old)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	r.Commit("bench")
	for i := 0; i < 20; i++ {
		r.Write(fmt.Sprintf("d%02d/s%02d/f%04d.txt", i*250/500, i*250/50%10, i*250), "modified\n")
	}
	for i := 0; i < 10; i++ {
		r.Write(fmt.Sprintf("d%02d/untracked%d.txt", i, i), "new\n")
	}
	return r.Dir
}

func cmpSkip(err error, d os.DirEntry) error {
	if err != nil {
		return err
	}
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

func benchWS(b *testing.B) *Workspace {
	b.Helper()
	ws, err := Open(context.Background(), benchRepo(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

// BenchmarkStatWalk is the walk of a snapshot: lstat of every tracked
// entry, readdir of every folder, ignore rules, untracked files (from the
// stat cache after the first round).
func BenchmarkStatWalk(b *testing.B) {
	ws := benchWS(b)
	idx, err := ws.ReadIndex(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	cpu := startCPU()
	for b.Loop() {
		s := &scan{w: ws, idx: idx, cache: loadStatCache(ws.StateDir()), fresh: statCache{}, snap: &Snapshot{}}
		if _, err := s.run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// BenchmarkReadIndex parses the index file (checksum included).
func BenchmarkReadIndex(b *testing.B) {
	ws := benchWS(b)
	for b.Loop() {
		if _, err := ws.ReadIndex(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildTree computes every folder's tree of the index in memory.
func BenchmarkBuildTree(b *testing.B) {
	ws := benchWS(b)
	idx, err := ws.ReadIndex(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	flat := indexFlat(idx)
	for b.Loop() {
		if _, err := buildTree(flat, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClassify decides, for every tracked entry, reuse of the index's
// blob id or a re-hash (mode and stat comparison, racy-clean rule).
func BenchmarkClassify(b *testing.B) {
	ws := benchWS(b)
	idx, err := ws.ReadIndex(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	s := &scan{w: ws, idx: idx, filemode: true, trustCtime: true, symlinks: true}
	sts := make([]fileStat, len(idx.Entries))
	for i := range idx.Entries {
		if err := lstatPath(filepath.Join(ws.repo.WorkTree, idx.Entries[i].Path), &sts[i]); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	for b.Loop() {
		n = 0
		for i := range idx.Entries {
			e := &idx.Entries[i]
			if s.modeOf(&sts[i], e.Mode) == e.Mode && s.statMatches(e, &sts[i]) {
				n++
			}
		}
	}
	if n == 0 {
		b.Fatal("no entry matched its stat data")
	}
}

// BenchmarkDaemonSnapshot is a whole-workspace snapshot through the watch
// daemon after one file changed: the cookie round trip, the changed file
// hashed, the trees on its path rewritten and synced. Compare with
// BenchmarkStatWalk, which is the walk alone.
func BenchmarkDaemonSnapshot(b *testing.B) {
	w := benchWS(b)
	d := w.NewDaemon(nil)
	b.Cleanup(func() { d.Close() })
	ctx := context.Background()
	if _, err := d.Snapshot(ctx); err != nil { // arms the watcher
		b.Fatal(err)
	}
	idx, err := w.ReadIndex(ctx)
	if err != nil {
		b.Fatal(err)
	}
	file := w.Abs(idx.Entries[len(idx.Entries)/2].Path)
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.WriteFile(file, orig, 0o644) })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := os.WriteFile(file, fmt.Appendf(nil, "%s%d\n", orig, i), 0o644); err != nil {
			b.Fatal(err)
		}
		snap, err := d.Snapshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if snap.Stats.Hashed != 1 {
			b.Fatalf("daemon hashed %d files, want 1 (did it walk?)", snap.Stats.Hashed)
		}
	}
}
