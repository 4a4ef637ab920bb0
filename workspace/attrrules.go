package workspace

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/gitguard/gitguard/internal/git"
)

// attrRules answers gitattributes questions for the files of one work
// tree without starting git: it reads the attribute files git reads, in
// git's order of precedence (lowest first: the built-in "binary" macro,
// the system file, core.attributesFile, the top-level .gitattributes, the
// .gitattributes of every folder down to the file's, and
// $GIT_DIR/info/attributes), each at most once.
//
// Where git might see something gitguard does not model exactly (a
// .gitattributes that is a symlink or missing from the work tree but in
// the index, an unreadable file, attr.tree, a system file in an
// unexpected place) the answer is "unsure", and the caller asks git.
//
// attrRules is safe for concurrent use. It is a view of the files at the
// time they are first read; take a new one for each snapshot.
type attrRules struct {
	workTree string
	fold     bool
	// indexed reports whether the index has a .gitattributes in dir: git
	// reads that one when the work tree lacks it. Nil: not known.
	indexed func(dir string) bool
	// staged finds the index's blobs, which git consults when it guesses
	// a file's line endings (see inProcess).
	staged stagedBlobs

	base      []*attrFile // built-in, system, global, top-level (lowest first)
	info      *attrFile
	unsureAll bool
	macros    map[string]*attrLine
	relevant  map[string]bool // attributes that can decide a conversion

	mu     sync.Mutex
	dirs   map[string]*dirAttrs
	stacks map[string]stackSum // by folder (see stackSum)
}

// stackSum sums up the attribute files that apply to a folder's files.
type stackSum struct {
	sum    uint64
	unsure bool
}

// dirAttrs is a folder's own .gitattributes.
type dirAttrs struct {
	file   *attrFile // nil: none
	unsure bool
}

// attrSources are the files outside the work tree attrRules reads.
type attrSources struct {
	system    string // "" with GIT_ATTR_NOSYSTEM
	global    string // core.attributesFile or its default
	info      string // $GIT_COMMON_DIR/info/attributes
	unsureAll bool   // git reads attributes from somewhere else too
}

// conversionAttrs are the attributes that change content between the work
// tree and the object database.
var conversionAttrs = []string{"text", "eol", "crlf", "filter", "ident", "working-tree-encoding"}

const builtinAttrs = "[attr]binary -diff -merge -text\n"

// attrSourcesOf decides where git reads attributes for this workspace.
func (w *Workspace) attrSourcesOf() attrSources {
	src := attrSources{info: filepath.Join(w.repo.CommonDir, "info", "attributes")}
	src.global = w.opts.AttributesFile
	if src.global != "" && !filepath.IsAbs(src.global) {
		// git resolves it from its working folder: the top of the work
		// tree when gitguard runs it.
		src.global = filepath.Join(w.repo.WorkTree, src.global)
	}
	if _, set := w.config.Get("attr.tree"); set || os.Getenv("GIT_ATTR_SOURCE") != "" {
		src.unsureAll = true // newer git reads attributes from a tree
	}
	switch v := strings.ToLower(os.Getenv("GIT_ATTR_NOSYSTEM")); v {
	case "", "0", "false", "no", "off":
		var other bool
		src.system, other = git.SystemAttributesFile()
		src.unsureAll = src.unsureAll || other
	case "1", "true", "yes", "on":
	default:
		src.unsureAll = true
	}
	return src
}

// newAttrRules reads the attribute files outside the work tree and the
// top-level .gitattributes; indexed may be nil.
func (w *Workspace) newAttrRules(indexed func(dir string) bool) *attrRules {
	src := w.attrSources
	r := &attrRules{
		workTree:  w.repo.WorkTree,
		fold:      w.ignoreCase,
		indexed:   indexed,
		staged:    w.stagedNow,
		unsureAll: src.unsureAll,
		dirs:      map[string]*dirAttrs{},
		stacks:    map[string]stackSum{},
	}
	r.base = append(r.base, parseAttrs([]byte(builtinAttrs), "", true, r.fold))
	for _, f := range []string{src.system, src.global} {
		if a, ok := r.readOutside(f); a != nil {
			r.base = append(r.base, a)
		} else if !ok {
			r.unsureAll = true
		}
	}
	top := r.folder("")
	if top.unsure {
		r.unsureAll = true
	} else if top.file != nil {
		r.base = append(r.base, top.file)
	}
	var ok bool
	if r.info, ok = r.readOutside(src.info); !ok {
		r.unsureAll = true
	}
	r.findMacros()
	for _, f := range append(r.base, r.info) {
		r.markRelevant(f)
	}
	return r
}

// readOutside reads an attributes file outside the work tree (symlinks
// followed, as git does); ok is false when git could read it differently.
func (r *attrRules) readOutside(name string) (f *attrFile, ok bool) {
	if name == "" {
		return nil, true
	}
	fi, err := os.Stat(name)
	if isGone(err) {
		return nil, true
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > attrMaxFileSize {
		return nil, false
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, false
	}
	return parseAttrs(data, "", true, r.fold), true
}

// folder returns dir's own .gitattributes, reading it the first time.
func (r *attrRules) folder(dir string) *dirAttrs {
	r.mu.Lock()
	d := r.dirs[dir]
	r.mu.Unlock()
	if d != nil {
		return d
	}
	d = r.readFolder(dir)
	r.mu.Lock()
	if prev := r.dirs[dir]; prev != nil {
		d = prev
	} else {
		r.dirs[dir] = d
	}
	r.mu.Unlock()
	return d
}

func (r *attrRules) readFolder(dir string) *dirAttrs {
	name := filepath.Join(r.workTree, filepath.FromSlash(dir), ".gitattributes")
	fi, err := os.Lstat(name)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// git falls back to the index's copy (a sparse or an unstaged
		// deletion): then only git knows.
		return &dirAttrs{unsure: r.indexed != nil && r.indexed(dir)}
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > attrMaxFileSize {
		// A symlink is not followed inside the work tree (git then reads
		// the index's copy); anything else odd is git's to judge too.
		return &dirAttrs{unsure: true}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return &dirAttrs{unsure: true}
	}
	f := parseAttrs(data, dir, dir == "", r.fold)
	if r.relevant != nil {
		r.markRelevant(f)
	}
	return &dirAttrs{file: f}
}

// findMacros collects the macro definitions: the last one of the highest
// precedence file wins. Only the top-level and global files may hold them.
func (r *attrRules) findMacros() {
	r.macros = map[string]*attrLine{}
	for _, f := range append(r.base, r.info) {
		if f == nil {
			continue
		}
		for i := range f.lines {
			if l := &f.lines[i]; l.macro != "" {
				r.macros[l.macro] = l
			}
		}
	}
	// An attribute is relevant to conversion when it is one of the
	// conversion attributes or a macro that (through others) sets one.
	r.relevant = map[string]bool{}
	for _, a := range conversionAttrs {
		r.relevant[a] = true
	}
	for changed := true; changed; {
		changed = false
		for name, m := range r.macros {
			if r.relevant[name] {
				continue
			}
			for _, s := range m.states {
				if r.relevant[s.name] {
					r.relevant[name], changed = true, true
					break
				}
			}
		}
	}
}

func (r *attrRules) markRelevant(f *attrFile) {
	if f == nil {
		return
	}
	for i := range f.lines {
		l := &f.lines[i]
		for _, s := range l.states {
			if r.relevant[s.name] {
				l.relevant = true
				break
			}
		}
	}
}

// stack returns the attribute files that apply to path, lowest precedence
// first, and whether git may see others.
func (r *attrRules) stack(path string) ([]*attrFile, bool) {
	if r.unsureAll {
		return nil, true
	}
	files := append(make([]*attrFile, 0, len(r.base)+6), r.base...)
	for i := strings.IndexByte(path, '/'); i >= 0; {
		d := r.folder(path[:i])
		if d.unsure {
			return nil, true
		}
		if d.file != nil {
			files = append(files, d.file)
		}
		j := strings.IndexByte(path[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if r.info != nil {
		files = append(files, r.info)
	}
	return files, false
}

// stackSum sums up the attribute files that apply to path (stack), read
// once per folder: two files under the same sum get the same attributes
// when their names are the same. unsure is stack's.
func (r *attrRules) stackSum(path string) (sum uint64, unsure bool) {
	dir := ""
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir = path[:i]
	}
	r.mu.Lock()
	st, ok := r.stacks[dir]
	r.mu.Unlock()
	if ok {
		return st.sum, st.unsure
	}
	files, unsure := r.stack(path)
	h := fnv.New64a()
	var b [8]byte
	for _, f := range files {
		binary.LittleEndian.PutUint64(b[:], f.sum)
		h.Write(b[:])
	}
	st = stackSum{sum: h.Sum64(), unsure: unsure}
	r.mu.Lock()
	r.stacks[dir] = st
	r.mu.Unlock()
	return st.sum, st.unsure
}

// lookup returns every attribute git gives path (a file, relative to the
// top of the work tree), unspecified ones left out, as `git check-attr -a`
// lists them; unsure says only git can tell.
func (r *attrRules) lookup(path string) (map[string]attrState, bool) {
	files, unsure := r.stack(path)
	if unsure {
		return nil, true
	}
	res := r.fill(path, files, false)
	for k, v := range res {
		if v.kind == attrUnspecified {
			delete(res, k)
		}
	}
	return res, false
}

// fill is attr.c's fill: the files from the highest precedence down, each
// from its last line up, each line from its last state back; the first
// state found for an attribute is its value, and a macro that becomes set
// assigns its own states the same way.
func (r *attrRules) fill(path string, files []*attrFile, onlyRelevant bool) map[string]attrState {
	name := path[strings.LastIndexByte(path, '/')+1:]
	res := map[string]attrState{}
	var assign func(states []attrState)
	assign = func(states []attrState) {
		for i := len(states) - 1; i >= 0; i-- {
			s := states[i]
			if _, done := res[s.name]; done {
				continue
			}
			res[s.name] = s
			if m := r.macros[s.name]; m != nil && s.kind == attrSet {
				assign(m.states)
			}
		}
	}
	for k := len(files) - 1; k >= 0; k-- {
		f := files[k]
		for i := len(f.lines) - 1; i >= 0; i-- {
			l := &f.lines[i]
			if l.macro != "" || (onlyRelevant && !l.relevant) {
				continue
			}
			if l.pat.matches(path, name, f.base) {
				assign(l.states)
			}
		}
	}
	return res
}

// converts reports whether git converts the content of the file path
// between the work tree and the object database (convert.c's
// convert_attrs): a clean filter, ident, a working-tree encoding, or
// end-of-line conversion from text, crlf, eol or core.autocrlf. A value
// git would not understand counts as a conversion: git decides. unsure
// says only git can tell.
func (r *attrRules) converts(path string, autocrlf bool) (conv, unsure bool) {
	c, unsure := r.conversion(path, autocrlf)
	return c != convNone, unsure
}

// filterOf returns the value of path's filter attribute ("" when none);
// unsure as for converts.
func (r *attrRules) filterOf(path string) (name string, unsure bool) {
	files, unsure := r.stack(path)
	if unsure {
		return "", true
	}
	if a := r.fill(path, files, true)["filter"]; a.kind == attrValue {
		return a.value, false
	}
	return "", false
}

// conversion is converts telling line endings from other conversions.
func (r *attrRules) conversion(path string, autocrlf bool) (c conversion, unsure bool) {
	files, unsure := r.stack(path)
	if unsure {
		return convNone, true
	}
	return conversionKind(r.fill(path, files, true), autocrlf), false
}

// conversion is what git does to a file's content on its way into the
// object database.
type conversion int

const (
	convNone  conversion = iota
	convEOL              // line endings only: crlf, eol or text with a value git may not know
	convText             // line endings, text set or eol given: every CRLF becomes LF
	convAuto             // line endings guessed: text=auto, or core.autocrlf with text unspecified
	convOther            // a filter, ident or working-tree-encoding
)

func conversionOf(attrs map[string]attrState, autocrlf bool) bool {
	return conversionKind(attrs, autocrlf) != convNone
}

func conversionKind(attrs map[string]attrState, autocrlf bool) conversion {
	given := func(name string) bool {
		k := attrs[name].kind
		return k == attrSet || k == attrValue
	}
	if given("filter") || given("ident") || given("working-tree-encoding") {
		return convOther
	}
	text := attrs["text"]
	if text.kind == attrUnspecified {
		text = attrs["crlf"]
	}
	switch text.kind {
	case attrUnset:
		return convNone // binary: eol and core.autocrlf do not apply
	case attrSet:
		if attrs["text"].kind == attrSet {
			return convText // git's CRLF_TEXT*: no guessing, no look at the index
		}
		return convEOL
	case attrValue:
		if text.value == "auto" {
			return convAuto // git's CRLF_AUTO*, whatever eol says
		}
		return convEOL
	}
	if eol := attrs["eol"]; eol.kind == attrValue && (eol.value == "lf" || eol.value == "crlf") {
		return convText // eol implies text
	}
	if given("eol") {
		return convEOL
	}
	if autocrlf {
		return convAuto // git's CRLF_AUTO_CRLF or CRLF_AUTO_INPUT
	}
	return convNone
}
