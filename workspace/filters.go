package workspace

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// Content conversion. git may store a file differently from its bytes on
// disk: core.autocrlf and the text/eol attributes change line endings,
// clean/smudge filters (Git LFS) replace the content, ident expands $Id$.
// The index's blob ids are the converted ("clean") form, so gitguard records
// every file in that form too — a snapshot is what `git add -A` would stage,
// an LFS file is recorded as its pointer. Line endings are converted in
// process as git converts them (inProcess); files a filter, ident or a
// working-tree encoding converts are handed to git itself to hash (`git
// hash-object`, one process for all of a snapshot's paths), and every
// converted file to write back (`git cat-file --filters`). Which paths
// convert is decided in process from the attribute files (attrrules.go);
// paths nothing converts, the common case, never leave the process,
// whatever else .gitattributes says about them (diff drivers, linguist-*,
// binary).

// DefaultAttributesFile returns the global attributes file git reads when
// core.attributesFile is unset: $XDG_CONFIG_HOME/git/attributes, else
// ~/.config/git/attributes. A configured value starting with "~/" is expanded.
func DefaultAttributesFile(configured string) string {
	return globalGitFile(configured, "attributes")
}

func (w *Workspace) initConversion() {
	switch strings.ToLower(w.configString("core.autocrlf")) {
	case "true", "input", "yes", "on", "1":
		w.autocrlf = true
	}
	w.safecrlf = w.config.Bool("core.safecrlf", false) // "warn", git's default, only warns
	w.ignoreCase = hostNameRules(w.config).ignoreCase
	w.attrSources = w.attrSourcesOf()
}

func (w *Workspace) configString(key string) string {
	v, _ := w.config.Get(key)
	return v
}

// Converts reports whether git converts the content of path (a regular
// file) between the work tree and the object database.
func (w *Workspace) Converts(ctx context.Context, path string) (bool, error) {
	conv, unsure := w.newAttrRules(nil).converts(path, w.autocrlf)
	if !unsure {
		return conv, nil
	}
	vals, err := w.filters.CheckAttr(ctx, path, conversionAttrs...)
	if err != nil {
		return false, err
	}
	attrs := map[string]attrState{}
	for _, a := range conversionAttrs {
		switch v := vals[a]; v {
		case "", "unspecified":
		case "set":
			attrs[a] = attrState{name: a, kind: attrSet}
		case "unset":
			attrs[a] = attrState{name: a, kind: attrUnset}
		default:
			attrs[a] = attrState{name: a, kind: attrValue, value: v}
		}
	}
	return conversionOf(attrs, w.autocrlf), nil
}

// needsGit reports whether git must hash the regular file path: it
// converts, or only git can tell.
func (w *Workspace) needsGit(rules *attrRules, path string) bool {
	conv, unsure := rules.converts(path, w.autocrlf)
	return conv || unsure
}

// hashConverted returns the blob id git stages for the regular file path
// (at full, size bytes), which git converts by rules: worked out in process
// when it can be (withoutGit), else by git.
func (w *Workspace) hashConverted(rules *attrRules, path, full string, size int64) (record.Hash, error) {
	if h, ok, err := w.withoutGit(rules, path, full, size, false); ok || err != nil {
		return h, err
	}
	return w.filters.HashPath(context.Background(), path, false)
}

// withoutGit stores (with store) or only hashes the regular file path (at
// full, size bytes), which git converts by rules, when that takes no git:
// its line endings converted in process (inProcess), or its content kept
// as it is (keptAsIs). ok is false when git must do it.
func (w *Workspace) withoutGit(rules *attrRules, path, full string, size int64, store bool) (h record.Hash, ok bool, err error) {
	if convert := w.inProcess(rules, path); convert != nil {
		if store {
			h, ok, err = w.db.WriteFileConverted(full, size, convert)
		} else {
			h, ok, err = odb.HashFileConverted(full, size, convert)
		}
		if ok || err != nil {
			return h, ok, err
		}
	}
	if !w.keptAsIs(rules, path) {
		return record.ZeroHash, false, nil
	}
	if store {
		h, err = w.db.WriteFile(full, size)
	} else {
		h, err = hashFile(full, size)
	}
	return h, err == nil, err
}

// inProcess returns how a regular file git converts only in its line
// endings can be stored without git, as convert.c's crlf_to_git stores it:
//
//   - nothing changes without a CRLF;
//   - text set or an eol given (git's CRLF_TEXT*): every CR before an LF is
//     dropped;
//   - text=auto or core.autocrlf (CRLF_AUTO*): likewise, unless the content
//     looks binary or the blob staged for the path (rules.staged) has CRLF
//     line endings already, which git then keeps.
//
// nil, or a false from the function, when git must hash it: other
// conversions, and under core.safecrlf=true, where git refuses files whose
// line endings a checkout would change, everything but what git neither
// converts nor checks (guessed line endings of binary-looking content or
// kept as the staged blob has them).
func (w *Workspace) inProcess(rules *attrRules, path string) func(data []byte) ([]byte, bool) {
	c, unsure := rules.conversion(path, w.autocrlf)
	switch {
	case unsure:
		return nil
	case c == convAuto:
		return func(data []byte) ([]byte, bool) {
			if bytes.IndexByte(data, '\r') < 0 {
				return data, !w.safecrlf
			}
			if st := textStatsOf(data); st.binary() {
				return data, true // a lone CR counts as binary: crlf is not 0 below
			}
			if w.stagedCRLF(rules.staged, path) {
				return data, true // no conversion, and a checkout changes none of its CRLFs
			}
			return crlfToLF(data), !w.safecrlf
		}
	case w.safecrlf:
		return nil
	case c == convEOL:
		return func(data []byte) ([]byte, bool) { return data, bytes.IndexByte(data, '\r') < 0 }
	case c == convText:
		return func(data []byte) ([]byte, bool) { return crlfToLF(data), true }
	}
	return nil
}

// keptAsIs reports whether git stores the regular file path as it is
// although rules have it guess its line endings (text=auto,
// core.autocrlf): the blob staged for it has CRLF line endings. git
// hash-object, which reads no index, would convert such a file where git
// add does not; so the files inProcess leaves to git (too large to
// convert in memory) are asked this first.
func (w *Workspace) keptAsIs(rules *attrRules, path string) bool {
	if c, unsure := rules.conversion(path, w.autocrlf); unsure || c != convAuto || w.safecrlf {
		return false
	}
	return w.stagedCRLF(rules.staged, path)
}

// stagedBlobs returns the blob git compares a file with when it guesses
// its line endings (convert.c's read_blob_data_from_index): the path's
// index entry, or in a conflict its stage 2; ok is false when the index
// has neither.
type stagedBlobs func(path string) (h record.Hash, ok bool)

// stagedIn is stagedBlobs for idx.
func stagedIn(idx *Index) stagedBlobs {
	return func(path string) (record.Hash, bool) {
		i, _ := slices.BinarySearchFunc(idx.Entries, path, func(e IndexEntry, p string) int { return strings.Compare(e.Path, p) })
		for ; i < len(idx.Entries) && idx.Entries[i].Path == path; i++ {
			if e := idx.Entries[i]; e.Stage == 0 || e.Stage == 2 {
				return e.Hash, true
			}
		}
		return record.ZeroHash, false
	}
}

// stagedNow is stagedBlobs for the index file as it is now. It reads only
// the entries' names (findStaged), up to path's when no shared index file
// says the index may be split: a capture asks for one path, and a whole
// parse of a 100,000-entry index costs more than the rest of the hook. A
// split index is read whole.
func (w *Workspace) stagedNow(path string) (record.Hash, bool) {
	shared, err := filepath.Glob(filepath.Join(w.repo.GitDir, "sharedindex.*"))
	unsplit := err == nil && len(shared) == 0
	f, err := os.Open(filepath.Join(w.repo.GitDir, "index"))
	if err != nil {
		return record.ZeroHash, false // no index yet (or none to read): nothing is staged
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return record.ZeroHash, false
	}
	data, release, err := indexData(f, fi.Size())
	if err != nil {
		return record.ZeroHash, false
	}
	defer release()
	h, ok, err := findStaged(data, path, unsplit)
	if errors.Is(err, errSplitIndex) {
		idx, err := w.ReadIndex(context.Background())
		if err != nil {
			return record.ZeroHash, false
		}
		return stagedIn(idx)(path)
	}
	return h, ok && err == nil
}

// stagedCRLF reports whether the blob staged for path is text with CRLF
// line endings (convert.c's has_crlf_in_index); an unreadable blob has
// none, as for git.
func (w *Workspace) stagedCRLF(staged stagedBlobs, path string) bool {
	h, ok := staged(path)
	if !ok {
		return false
	}
	data, err := w.db.ReadAs(h, odb.TypeBlob)
	if err != nil || bytes.IndexByte(data, '\r') < 0 {
		return false
	}
	st := textStatsOf(data)
	return st.crlf > 0 && !st.binary()
}

// textStats counts what convert.c's gather_stats counts to tell text from
// binary and line endings apart.
type textStats struct {
	crlf, lonecr, nul, printable, nonprintable int
}

func textStatsOf(data []byte) textStats {
	var st textStats
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				st.crlf++
				i++
			} else {
				st.lonecr++
			}
		case c == '\n':
		case c == 127:
			st.nonprintable++
		case c < 32:
			switch c {
			case '\b', '\t', '\033', '\014':
				st.printable++
			case 0:
				st.nul++
				st.nonprintable++
			default:
				st.nonprintable++
			}
		default:
			st.printable++
		}
	}
	if n := len(data); n > 0 && data[n-1] == '\032' {
		st.nonprintable-- // a DOS end-of-file mark does not make a file binary
	}
	return st
}

// binary is convert.c's convert_is_binary.
func (st textStats) binary() bool {
	return st.lonecr > 0 || st.nul > 0 || st.printable>>7 < st.nonprintable
}

// conversionSignature sums up what decides how git converts the content of
// path: the attribute files that apply to it (their content, not their
// verdict, which would take matching every pattern again: see stackSum),
// core.ignoreCase, core.autocrlf and core.safecrlf, and, when git guesses
// its line endings (auto), the blob staged for it. A hash the stat cache
// keeps is trusted only under the signature it was made with, so that
// attribute files or core.autocrlf edited since, or another blob staged,
// make the file be hashed again. cacheable is false when only git can
// tell how path converts.
func (w *Workspace) conversionSignature(rules *attrRules, path string, auto bool) (sig uint64, cacheable bool) {
	sum, unsure := rules.stackSum(path)
	if unsure {
		return 0, false
	}
	var b [9]byte
	binary.LittleEndian.PutUint64(b[:], sum)
	for i, on := range []bool{rules.fold, w.autocrlf, w.safecrlf, auto} {
		if on {
			b[8] |= 1 << i
		}
	}
	h := fnv.New64a()
	h.Write(b[:])
	if auto {
		if staged, ok := rules.staged(path); ok {
			h.Write(staged[:])
		}
	}
	return h.Sum64(), true
}

// crlfToLF drops every CR that comes right before an LF.
func crlfToLF(data []byte) []byte {
	if !bytes.Contains(data, []byte("\r\n")) {
		return data
	}
	out := make([]byte, 0, len(data))
	for i, c := range data {
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		out = append(out, c)
	}
	return out
}
