package patchstore

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fgdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/gitguard/gitguard/record"
)

// FormatPatch returns a git-style patch turning before into after at path,
// which `git apply` accepts: a unified diff with three lines of context for
// text, a "GIT binary patch" (both directions) for binary content, header
// lines only for mode changes. Either side may be absent (nil content).
//
// A name git would quote (a newline, a tab, a backslash, a quote, control
// bytes) is quoted in the header lines as git quotes it ("a/new\nline"), so
// that no name can forge a line of the patch.
func FormatPatch(path string, before, after record.State, a, b []byte) (patch []byte, binary bool) {
	if record.QuotePath(path) != path {
		patch, binary = FormatPatch(pathToken, before, after, a, b)
		return quoteHeaders(patch, path), binary
	}
	binary = record.IsBinary(a) || record.IsBinary(b)
	if binary {
		return formatBinary(path, before, after, a, b), true
	}
	var buf bytes.Buffer
	enc := fgdiff.NewUnifiedEncoder(&buf, fgdiff.DefaultContextLines)
	fp := &filePatch{path: path, before: before, after: after}
	if a == nil && b == nil && before.Exists() == after.Exists() {
		fp.chunks = nil
	} else {
		for _, d := range diff.Do(string(a), string(b)) {
			op := map[diffmatchpatch.Operation]fgdiff.Operation{
				diffmatchpatch.DiffEqual: fgdiff.Equal, diffmatchpatch.DiffInsert: fgdiff.Add, diffmatchpatch.DiffDelete: fgdiff.Delete,
			}[d.Type]
			fp.chunks = append(fp.chunks, chunk{d.Text, op})
		}
	}
	_ = enc.Encode(onePatch{fp}) // writes to a bytes.Buffer: cannot fail
	out := buf.Bytes()
	// git writes no ---/+++ lines for an empty file created or deleted.
	if len(fp.chunks) == 0 || (len(a) == 0 && len(b) == 0) {
		out = dropPathLines(out)
	}
	return out, false
}

func dropPathLines(p []byte) []byte {
	var out []string
	for _, l := range strings.SplitAfter(string(p), "\n") {
		if strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ") {
			continue
		}
		out = append(out, l)
	}
	return []byte(strings.Join(out, ""))
}

type onePatch struct{ fp *filePatch }

func (p onePatch) FilePatches() []fgdiff.FilePatch { return []fgdiff.FilePatch{p.fp} }
func (p onePatch) Message() string                 { return "" }

type filePatch struct {
	path          string
	before, after record.State
	chunks        []fgdiff.Chunk
}

func (f *filePatch) IsBinary() bool { return false }
func (f *filePatch) Files() (fgdiff.File, fgdiff.File) {
	var from, to fgdiff.File
	if f.before.Exists() {
		from = file{f.path, f.before}
	}
	if f.after.Exists() {
		to = file{f.path, f.after}
	}
	return from, to
}
func (f *filePatch) Chunks() []fgdiff.Chunk { return f.chunks }

type file struct {
	path string
	st   record.State
}

func (f file) Hash() plumbing.Hash     { return plumbing.Hash(f.st.Hash) }
func (f file) Mode() filemode.FileMode { return filemode.FileMode(f.st.Mode) }
func (f file) Path() string            { return f.path }

type chunk struct {
	text string
	op   fgdiff.Operation
}

func (c chunk) Content() string        { return c.text }
func (c chunk) Type() fgdiff.Operation { return c.op }

// pathToken stands for a name that needs quoting while a patch is
// formatted; quoteHeaders puts the quoted name in its place.
const pathToken = "gitguard-path-to-quote"

// quoteHeaders replaces a/pathToken and b/pathToken in the header lines of
// patch with the quoted a/path and b/path, as git writes them.
// Content lines are left alone, whatever they hold.
func quoteHeaders(patch []byte, path string) []byte {
	end := len(patch)
	for _, mark := range []string{"\n@@", "\nGIT binary patch\n"} {
		if i := bytes.Index(patch, []byte(mark)); i >= 0 && i < end {
			end = i
		}
	}
	head := bytes.ReplaceAll(patch[:end], []byte("a/"+pathToken), []byte(record.QuotePath("a/"+path)))
	head = bytes.ReplaceAll(head, []byte("b/"+pathToken), []byte(record.QuotePath("b/"+path)))
	return append(head, patch[end:]...)
}

// OversizePatch is the patch text of a path recorded by hash only: git's
// header lines and a note, since there is no content to diff.
func OversizePatch(path string, before, after record.State) []byte {
	if record.QuotePath(path) != path {
		return quoteHeaders(OversizePatch(pathToken, before, after), path)
	}
	return fmt.Appendf(nil, "diff --git a/%s b/%s\nindex %s..%s\n# gitguard: over the size limit, recorded by hash only\n",
		path, path, before.Hash, after.Hash)
}

// formatBinary writes git's binary patch format: a forward and a reverse
// "literal" hunk, each zlib-deflated and base85-encoded.
func formatBinary(path string, before, after record.State, a, b []byte) []byte {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "diff --git a/%s b/%s\n", path, path)
	switch {
	case !before.Exists():
		fmt.Fprintf(&buf, "new file mode %o\nindex %s..%s\n", uint32(after.Mode), record.ZeroHash, after.Hash)
	case !after.Exists():
		fmt.Fprintf(&buf, "deleted file mode %o\nindex %s..%s\n", uint32(before.Mode), before.Hash, record.ZeroHash)
	case before.Mode != after.Mode:
		fmt.Fprintf(&buf, "old mode %o\nnew mode %o\nindex %s..%s\n", uint32(before.Mode), uint32(after.Mode), before.Hash, after.Hash)
	default:
		fmt.Fprintf(&buf, "index %s..%s %o\n", before.Hash, after.Hash, uint32(after.Mode))
	}
	buf.WriteString("GIT binary patch\n")
	writeLiteral(&buf, b)
	writeLiteral(&buf, a)
	return buf.Bytes()
}

func writeLiteral(buf *bytes.Buffer, data []byte) {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	fmt.Fprintf(buf, "literal %d\n", len(data))
	zd := z.Bytes()
	for len(zd) > 0 {
		n := min(len(zd), 52)
		if n <= 26 {
			buf.WriteByte(byte('A' + n - 1))
		} else {
			buf.WriteByte(byte('a' + n - 27))
		}
		buf.Write(base85(zd[:n]))
		buf.WriteByte('\n')
		zd = zd[n:]
	}
	buf.WriteByte('\n')
}

const base85Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

// base85 encodes data as git does, in groups of four bytes (the last one
// zero-padded) to five characters.
func base85(data []byte) []byte {
	var out []byte
	for len(data) > 0 {
		var acc uint32
		for i := 0; i < 4; i++ {
			acc <<= 8
			if i < len(data) {
				acc |= uint32(data[i])
			}
		}
		var grp [5]byte
		for i := 4; i >= 0; i-- {
			grp[i] = base85Alphabet[acc%85]
			acc /= 85
		}
		out = append(out, grp[:]...)
		data = data[min(4, len(data)):]
	}
	return out
}
