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
