package workspace

import (
	"context"
	"fmt"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// attrBenchRepo is a repository with a typical top-level .gitattributes,
// one in a folder, and 1000 paths to ask about.
func attrBenchRepo(b *testing.B) (*Workspace, []string) {
	b.Helper()
	r := gittest.New(b)
	r.Write(".gitattributes", typicalAttributes+"[attr]generated -diff linguist-generated\n*.pb.go generated\n")
	r.Write("d01/.gitattributes", "*.c diff=cpp\n*.md linguist-generated\n")
	exts := []string{"go", "md", "png", "txt", "c", "pb.go"}
	var paths []string
	for i := 0; i < 1000; i++ {
		paths = append(paths, fmt.Sprintf("d%02d/s%02d/f%04d.%s", i/100, i/10%10, i, exts[i%len(exts)]))
	}
	paths = append(paths, "docs/guide/intro.md")
	ws, err := Open(context.Background(), r.Dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws, paths
}

// BenchmarkAttrConverts is the question a snapshot asks of every file it
// hashes: does git convert it? The rules are read once per snapshot; this
// is the cost per path after that.
func BenchmarkAttrConverts(b *testing.B) {
	ws, paths := attrBenchRepo(b)
	rules := ws.newAttrRules(nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rules.converts(paths[i%len(paths)], false)
	}
}

// BenchmarkAttrLookup looks up every attribute of a path (check-attr -a).
func BenchmarkAttrLookup(b *testing.B) {
	ws, paths := attrBenchRepo(b)
	rules := ws.newAttrRules(nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rules.lookup(paths[i%len(paths)])
	}
}

// BenchmarkAttrRules reads the attribute files and answers one path, as
// a single-file capture does.
func BenchmarkAttrRules(b *testing.B) {
	ws, paths := attrBenchRepo(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ws.newAttrRules(nil).converts(paths[i%len(paths)], false)
	}
}
