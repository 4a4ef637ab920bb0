package odb

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/gittest"
)

// Every object of packs full of deltas, offset-based and id-based, reads
// through the mapped packs exactly as git cat-file prints it.
func TestPackedObjectsReadAsGitDoes(t *testing.T) {
	for _, offsets := range []bool{true, false} {
		t.Run(fmt.Sprintf("offset deltas %v", offsets), func(t *testing.T) {
			r := gittest.New(t)
			var body strings.Builder
			for i := 0; i < 40; i++ {
				for j := 0; j < 30; j++ {
					fmt.Fprintf(&body, "line %d of version %d\n", j, i%3)
				}
				fmt.Fprintf(&body, "the %dth change\n", i)
				r.Write("grows.txt", body.String())
				r.Write(fmt.Sprintf("dir%d/small.txt", i%5), fmt.Sprintf("small %d\n", i))
				r.Commit(fmt.Sprintf("c%d", i))
			}
			r.Git("-c", fmt.Sprintf("repack.useDeltaBaseOffset=%v", offsets), "repack", "-adfq", "--depth=60")
			db, err := Open(filepath.Join(r.Dir, ".git"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			out, err := git.Run(context.Background(), r.Dir, "verify-pack", "-v", packFile(t, r.Dir))
			if err != nil {
				t.Fatal(err)
			}
			deltas := 0
			for _, line := range strings.Split(string(out), "\n") {
				f := strings.Fields(line)
				if len(f) < 5 || len(f[0]) != 40 {
					continue
				}
				h, err := git.ParseHash(f[0])
				if err != nil {
					t.Fatal(err)
				}
				if len(f) >= 7 {
					deltas++
				}
				typ, data, err := db.packs.read(h)
				if err != nil {
					t.Fatalf("%s (%s): %v", h, line, err)
				}
				want, err := git.Run(context.Background(), r.Dir, "cat-file", string(typ), h.String())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(data, want) || string(typ) != f[1] {
					t.Fatalf("%s: read a %s of %d bytes, git has a %s of %d", h, typ, len(data), f[1], len(want))
				}
			}
			if deltas < 20 {
				t.Fatalf("only %d deltas: the test proves little", deltas)
			}
		})
	}
}

func packFile(t *testing.T, dir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if err != nil || len(m) != 1 {
		t.Fatalf("want one pack index, found %v (%v)", m, err)
	}
	return m[0]
}

// Damaged deltas are refused, never applied past their bounds.
func TestApplyDeltaRefusesDamage(t *testing.T) {
	base := []byte("0123456789")
	for name, delta := range map[string][]byte{
		"wrong base size": {5, 3, 3, 'a', 'b', 'c'},
		"copy past base":  {10, 4, 0x91, 8, 4},
		"insert too long": {10, 2, 3, 'a', 'b', 'c'},
		"opcode zero":     {10, 1, 0},
		"short result":    {10, 5, 1, 'a'},
		"truncated":       {10},
	} {
		if _, err := applyDelta(base, delta); err == nil {
			t.Errorf("%s: applied", name)
		}
	}
	got, err := applyDelta(base, []byte{10, 6, 0x91, 2, 3, 3, 'x', 'y', 'z'})
	if err != nil || string(got) != "234xyz" {
		t.Fatalf("a valid delta: %q, %v", got, err)
	}
}
