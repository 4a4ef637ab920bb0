package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeRecord feeds arbitrary bytes to the record decoder as each
// record type: it never panics, refuses only with ErrCorrupt, and what it
// accepts round-trips (encode, decode, encode gives the same bytes).
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"version":1,"id":"ckpt_001","seq":1,"runId":"r1","kind":"snapshot","createdAt":"2023-11-14T22:13:20Z","prev":"0000000000000000000000000000000000000000","head":{"oid":"0000000000000000000000000000000000000000"},"indexTree":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","worktreeTree":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","changedPaths":0}`))
	f.Add([]byte(`[{"path":"a.txt","beforeHash":"0000000000000000000000000000000000000000","afterHash":"78981922613b2afb6025042ff6bd878ac1994e85","beforeMode":"000000","afterMode":"100644","patchRef":"0000000000000000000000000000000000000000","toolCallId":"c1","createdAt":"2023-11-14T22:13:20Z"}]`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"callId":"c1","toolName":"edit","status":"started","paths":["../x"]}`))
	f.Add([]byte(`[{"path":"a","mode":"120000","hash":"zz"}]`))
	f.Add([]byte("\x00\xff{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(name string, v, again any) {
			err := Decode(data, v, name)
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: error does not wrap ErrCorrupt: %v", name, err)
				}
				return
			}
			b1, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s: accepted but cannot encode: %v", name, err)
			}
			if err := Decode(b1, again, name); err != nil {
				t.Fatalf("%s: own encoding refused: %v\n%s", name, err, b1)
			}
			b2, _ := json.Marshal(again)
			if !bytes.Equal(b1, b2) {
				t.Fatalf("%s: no round trip:\n%s\n%s", name, b1, b2)
			}
		}
		check("checkpoint.json", &Checkpoint{}, &Checkpoint{})
		check("ledger.json", &LedgerEntry{}, &LedgerEntry{})
		check("patches.json", &[]FilePatch{}, &[]FilePatch{})
		check("before.json", &[]PathState{}, &[]PathState{})
		// The validators run on whatever decoded, without panicking.
		var cp Checkpoint
		if Decode(data, &cp, "checkpoint.json") == nil {
			_ = cp.Validate()
		}
		var le LedgerEntry
		if Decode(data, &le, "ledger.json") == nil {
			_ = le.Validate("c1")
		}
		var ps []FilePatch
		if Decode(data, &ps, "patches.json") == nil {
			_ = ValidatePatches("c1", ps)
		}
	})
}

// FuzzValidatePath checks that every path ValidatePath accepts is safe to
// join below a work tree: relative, clean, no "." or ".." or empty
// component, no .git component in any case (nor ".git " or ".git." that
// some file systems trim), no NUL, valid UTF-8 (JSON carries it as it is),
// bounded, and joined below a root it stays below it. Newline, tab and
// backslash are legal in git names and accepted. Refusals wrap ErrBadPath.
func FuzzValidatePath(f *testing.F) {
	for _, s := range []string{"a.txt", "dir/b", "../x", "/etc/x", ".git/hooks/pre-commit", ".GIT/config",
		"a/../../x", "a\x00b", "a\nb", "a\tb", "bad\xff", "a//b", "a/", "./a", ".git. /x", "x/.Git ", "with space", "-dash", "ünï/文件",
		`a\..\b`, strings.Repeat("x/", 3000)} {
		f.Add(s)
	}
	const root = "/work/tree"
	f.Fuzz(func(t *testing.T, p string) {
		err := ValidatePath(p)
		if err != nil {
			if !errors.Is(err, ErrBadPath) {
				t.Fatalf("%q: error does not wrap ErrBadPath: %v", p, err)
			}
			return
		}
		switch {
		case p == "" || len(p) > MaxPathLen:
			t.Fatalf("%q accepted: empty or too long", p)
		case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
			t.Fatalf("%q accepted: absolute", p)
		case strings.ContainsRune(p, 0) || !utf8.ValidString(p):
			t.Fatalf("%q accepted: NUL or not UTF-8", p)
		case path.Clean(p) != p:
			t.Fatalf("%q accepted: not clean (%q)", p, path.Clean(p))
		}
		for _, c := range strings.Split(p, "/") {
			if c == "" || c == "." || c == ".." {
				t.Fatalf("%q accepted: component %q", p, c)
			}
			if strings.EqualFold(strings.TrimRight(c, ". "), ".git") {
				t.Fatalf("%q accepted: .git component %q", p, c)
			}
		}
		if filepath.Separator == '\\' && strings.Contains(p, `\`) {
			// A backslash is a separator there: writers refuse such names
			// (ospath.CheckName), so joining them is never attempted.
			return
		}
		j := filepath.Join(root, filepath.FromSlash(p))
		if !strings.HasPrefix(j, root+"/") {
			t.Fatalf("%q accepted: joins to %q, outside %s", p, j, root)
		}
		if rel, err := filepath.Rel(root, j); err != nil || rel != filepath.FromSlash(p) {
			t.Fatalf("%q accepted: does not round-trip below the root (%q, %v)", p, rel, err)
		}
	})
}
