package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// Every index version parses to what git ls-files lists, paths included
// (version 4 compresses each against the one before), and a damaged path
// byte, which leaves the entries well formed, is caught by the checksum.
func TestParseIndexVersions(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			t.Parallel()
			r := gittest.New(t)
			r.Git("commit", "-q", "--allow-empty", "-m", "start")
			for i := 0; i < 300; i++ {
				gittest.WriteFile(t, filepath.Join(r.Dir, fmt.Sprintf("d%d/sub-%d/file-%03d.txt", i%3, i%7, i)), fmt.Sprintf("%d\n", i))
			}
			r.Git("add", "-A")
			r.Git("update-index", "--index-version", version)
			path := filepath.Join(r.Dir, ".git", "index")
			idx, err := readIndexFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := stageLines(idx), r.Git("ls-files", "-s"); strings.Join(got, "\n") != want {
				t.Fatalf("parsed:\n%s\ngit ls-files -s:\n%s", strings.Join(got, "\n"), want)
			}

			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The last entry's path ends the last ".txt" (the extensions
			// name folders only).
			at := bytes.LastIndex(data, []byte(".txt"))
			if at < 0 {
				t.Fatal("no .txt in the index")
			}
			data[at+1] = 'T'
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = readIndexFile(path)
			data[at+1] = 't' // sound again for the fsck at the end
			if werr := os.WriteFile(path, data, 0o644); werr != nil {
				t.Fatal(werr)
			}
			if !errors.Is(err, ErrIndexFormat) || !strings.Contains(err.Error(), "checksum") {
				t.Fatalf("index with a damaged path: %v, want a checksum mismatch", err)
			}
		})
	}
}

// stageLines lists the index's entries as git ls-files -s does.
func stageLines(idx *Index) []string {
	var out []string
	for _, e := range idx.Entries {
		out = append(out, fmt.Sprintf("%06o %s %d\t%s", uint32(e.Mode), e.Hash, e.Stage, e.Path))
	}
	return out
}

// TestFindStaged: looking one path up in the index file, as a capture does
// for guessed line endings, finds what the whole parse finds (stage 0,
// else stage 2) in every index version, with conflicts, intent-to-add and
// skip-worktree entries, for every path, absent ones and prefixes of
// others; a split index is refused, and stagedNow then reads it whole.
func TestFindStaged(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := gittest.New(t)
			conflictedMerge(t, r)
			r.Write("intent.txt", "added with -N\n")
			if version != "2" {
				r.Git("add", "-N", "intent.txt")
				r.Git("update-index", "--skip-worktree", "dir/sub/c.txt")
			}
			// A path too long for the entry's flags to hold its length.
			long := strings.Repeat(strings.Repeat("x", 199)+"/", 21) + "long.txt"
			blob := strings.TrimSpace(r.Git("hash-object", "-w", filepath.Join(r.Dir, "a.txt")))
			r.Git("update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
			r.Git("update-index", "--index-version", version)
			path := filepath.Join(r.Dir, ".git", "index")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			idx, err := parseIndex(data)
			if err != nil {
				t.Fatal(err)
			}
			whole := stagedIn(idx)
			paths := []string{"", "a", "a.tx", "a.txt.", "dir", "dir/sub", "zzz", "intent.txt", long[:len(long)-1]}
			for _, e := range idx.Entries {
				paths = append(paths, e.Path)
			}
			for _, p := range paths {
				for _, unsplit := range []bool{false, true} {
					h, ok, err := findStaged(data, p, unsplit)
					if err != nil {
						t.Fatalf("findStaged(%q, %v): %v", p, unsplit, err)
					}
					wantH, wantOK := whole(p)
					if h != wantH || ok != wantOK {
						t.Errorf("findStaged(%q, %v) = %s %v, the whole parse finds %s %v", p, unsplit, h, ok, wantH, wantOK)
					}
				}
			}
			var ours string
			for _, line := range strings.Split(r.Git("ls-files", "-s", "--", "a.txt"), "\n") {
				if f := strings.Fields(line); len(f) == 4 && f[2] == "2" {
					ours = f[1]
				}
			}
			if h, ok, _ := findStaged(data, "a.txt", true); !ok || h.String() != ours {
				t.Errorf("a.txt, conflicted: %s %v, want its stage 2, %s", h, ok, ours)
			}
			if h, ok, _ := findStaged(data, long, false); !ok || h.String() != blob {
				t.Errorf("a %d-byte path: %s %v, want %s", len(long), h, ok, blob)
			}

			r.Git("update-index", "--split-index")
			split, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := findStaged(split, "a.txt", false); !errors.Is(err, errSplitIndex) {
				t.Fatalf("split index: %v, want errSplitIndex", err)
			}
			ws := openWS(t, r.Dir)
			for _, p := range paths {
				h, ok := ws.stagedNow(p)
				if wantH, wantOK := whole(p); h != wantH || ok != wantOK {
					t.Errorf("split index: stagedNow(%q) = %s %v, want %s %v", p, h, ok, wantH, wantOK)
				}
			}
			r.Git("fsck", "--strict")
		})
	}
}
