package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// The view (record.View) is what decides what a snapshot sees besides the
// run's settings. Every snapshot records the view it saw (Snapshot.View),
// as a small tree: the configuration keys of the view, the ignore and
// attribute files outside the work tree, the index's skip-worktree and
// assume-unchanged bits, and the .gitignore files the walk read. Two views
// compare as two tree ids, so noticing that a call changed the view costs
// nothing when it did not.
//
// A workspace opened with Options.ViewStart (a run's start view) snapshots
// as the run started, so that an agent cannot blind the guard through git
// itself:
//
//   - a path is left out only if both the start's rules and today's leave
//     it out: .gitignore files, $GIT_DIR/info/exclude, core.excludesFile
//     (two ignore stacks, see viewIgnores), and skip-worktree bits;
//   - clean and smudge filters convert as configured at the start (git
//     -c), so that a filter configured since cannot record content as
//     nothing; core.fileMode, core.trustctime and core.checkStat keep
//     their start values (see freeze).
//
// When nothing changed, which is the common case, the start's rules are
// today's and the walk costs what it did: the frozen view only reads the
// start tree's few small objects.

// viewIgnoreName is the file whose copies the view's ignores/ folder keeps.
const viewIgnoreName = ".gitignore"

// viewConfig returns the view's configuration blob of cfg: one line per
// value of each view key, `"key" "value"`, sorted by key (values in git's
// order).
func viewConfig(cfg map[string][]string) []byte {
	keys := make([]string, 0, 16)
	for k := range cfg {
		if record.ViewConfigKey(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		for _, v := range cfg[k] {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(' ')
			b.WriteString(strconv.Quote(v))
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// parseViewConfig reads a configuration blob back; bad lines are errors.
func parseViewConfig(data []byte) (map[string][]string, error) {
	out := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		kq, err := strconv.QuotedPrefix(line)
		if err != nil || len(line) < len(kq)+1 || line[len(kq)] != ' ' {
			return nil, fmt.Errorf("view config line %q", line)
		}
		k, _ := strconv.Unquote(kq)
		v, err := strconv.Unquote(line[len(kq)+1:])
		if err != nil || !record.ViewConfigKey(k) {
			return nil, fmt.Errorf("view config line %q", line)
		}
		out[k] = append(out[k], v)
	}
	return out, nil
}

// indexBits returns the view's index-bits blob of idx.
func indexBits(idx *Index) []byte {
	var b bytes.Buffer
	for i := range idx.Entries {
		e := &idx.Entries[i]
		if e.SkipWorktree {
			b.WriteString("skip-worktree " + strconv.Quote(e.Path) + "\n")
		}
		if e.AssumeValid {
			b.WriteString("assume-unchanged " + strconv.Quote(e.Path) + "\n")
		}
	}
	return b.Bytes()
}

// skipWorktreeSet parses the skip-worktree paths of an index-bits blob.
func skipWorktreeSet(data []byte) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if q, ok := strings.CutPrefix(line, "skip-worktree "); ok {
			if p, err := strconv.Unquote(q); err == nil {
				out[p] = true
			}
		}
	}
	return out
}

// outsideFiles are the view's files outside the work tree: entry name and
// file, as this workspace reads them now.
func (w *Workspace) outsideFiles() [][2]string {
	info := filepath.Join(w.repo.CommonDir, "info")
	return [][2]string{
		{record.ViewInfoExclude, filepath.Join(info, "exclude")},
		{record.ViewExcludesFile, w.opts.ExcludesFile},
		{record.ViewInfoAttributes, filepath.Join(info, "attributes")},
		{record.ViewAttributesFile, w.opts.AttributesFile},
	}
}

// writeView stores the view a snapshot saw: idx is the index it read,
// ignores the .gitignore blobs the walk read, by path.
func (w *Workspace) writeView(idx *Index, ignores map[string]record.Hash) (record.Hash, error) {
	var states []record.FileState
	blob := func(name string, data []byte) error {
		if len(data) == 0 {
			return nil
		}
		h, err := w.db.Write(odb.TypeBlob, data)
		if err != nil {
			return err
		}
		states = append(states, record.FileState{Path: name, Mode: record.ModeFile, Hash: h})
		return nil
	}
	if err := blob(record.ViewConfig, viewConfig(w.seenConfig)); err != nil {
		return record.ZeroHash, err
	}
	for _, f := range w.outsideFiles() {
		if f[1] == "" {
			continue
		}
		data, err := os.ReadFile(f[1])
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) && !errors.Is(err, os.ErrInvalid) {
			return record.ZeroHash, fmt.Errorf("read %s: %w", f[1], err)
		}
		if err := blob(f[0], data); err != nil {
			return record.ZeroHash, err
		}
	}
	if err := blob(record.ViewIndexBits, indexBits(idx)); err != nil {
		return record.ZeroHash, err
	}
	for p, h := range ignores {
		states = append(states, record.FileState{Path: record.ViewIgnores + "/" + p, Mode: record.ModeFile, Hash: h})
	}
	return w.db.Overlay(odb.EmptyTree, states)
}

// frozenView is the run's start view as a workspace uses it.
type frozenView struct {
	tree    record.Hash
	top     map[string]record.Hash // the start tree's entries: blobs by name
	ignores map[string]record.Hash // .gitignore blobs of the start, by folder ("" for the top)
	skip    map[string]bool        // skip-worktree paths of the start; nil until needed
}

// loadFrozen reads the start view tree; every object is small.
func (w *Workspace) loadFrozen(tree record.Hash) (*frozenView, error) {
	f := &frozenView{tree: tree, top: map[string]record.Hash{}, ignores: map[string]record.Hash{}}
	entries, err := w.db.ReadTree(tree)
	if err != nil {
		return nil, fmt.Errorf("read the run's start view: %w", err)
	}
	for _, e := range entries {
		if e.Name == record.ViewIgnores && e.Mode == record.ModeTree {
			if err := w.frozenIgnores(e.Hash, "", f.ignores, 0); err != nil {
				return nil, err
			}
			continue
		}
		if e.Mode.IsFile() {
			f.top[e.Name] = e.Hash
		}
	}
	return f, nil
}

func (w *Workspace) frozenIgnores(tree record.Hash, dir string, out map[string]record.Hash, depth int) error {
	if depth > record.MaxTreeDepth {
		return fmt.Errorf("%w: the run's start view nests too deep", record.ErrCorrupt)
	}
	entries, err := w.db.ReadTree(tree)
	if err != nil {
		return fmt.Errorf("read the run's start view: %w", err)
	}
	for _, e := range entries {
		sub := e.Name
		if dir != "" {
			sub = dir + "/" + e.Name
		}
		switch {
		case e.Mode == record.ModeTree:
			if err := w.frozenIgnores(e.Hash, sub, out, depth+1); err != nil {
				return err
			}
		case e.Name == viewIgnoreName && e.Mode.IsFile():
			out[dir] = e.Hash
		}
	}
	return nil
}

// blob reads the start view's entry name; nil when it has none.
func (f *frozenView) blob(db *odb.DB, name string) ([]byte, error) {
	h, ok := f.top[name]
	if !ok {
		return nil, nil
	}
	data, err := db.ReadAs(h, odb.TypeBlob)
	if err != nil {
		return nil, fmt.Errorf("read the run's start view: %s: %w", name, err)
	}
	return data, nil
}

// freeze makes the workspace see as the run started: the clean and smudge
// filters configured then (git -c filter.NAME.KEY=VALUE, or empty for a
// filter configured since, which git then does not run), and the stat
// trust of then (core.fileMode, core.trustctime, core.checkStat). Line
// ending settings stay today's: they convert content reversibly, and
// git's index, whose blob ids the walk reuses, holds content converted as
// configured today.
func (w *Workspace) freeze(tree record.Hash) error {
	f, err := w.loadFrozen(tree)
	if err != nil {
		return err
	}
	w.frozen = f
	seen := viewConfig(w.seenConfig)
	if f.top[record.ViewConfig] == odb.HashObject(odb.TypeBlob, seen) || (len(seen) == 0 && f.top[record.ViewConfig].IsZero()) {
		return nil // configured as at the start
	}
	data, err := f.blob(w.db, record.ViewConfig)
	if err != nil {
		return err
	}
	start, err := parseViewConfig(data)
	if err != nil {
		return fmt.Errorf("%w: the run's start view: %w", record.ErrCorrupt, err)
	}
	keys := map[string]bool{}
	for k := range start {
		keys[k] = true
	}
	for k := range w.seenConfig {
		if record.ViewConfigKey(k) {
			keys[k] = true
		}
	}
	cfg := maps.Clone(w.config)
	var over []string
	for k := range keys {
		if slices.Equal(start[k], w.seenConfig[k]) {
			continue
		}
		switch {
		case k == "core.filemode" || k == "core.trustctime" || k == "core.checkstat":
			if vs, ok := start[k]; ok {
				cfg[k] = vs
			} else {
				delete(cfg, k)
			}
		case strings.HasPrefix(k, "filter."):
			v := ""
			if vs := start[k]; len(vs) > 0 {
				v = vs[len(vs)-1]
			}
			over = append(over, k+"="+v)
			if i := strings.LastIndexByte(k, '.'); i > len("filter.") {
				if w.changedFilters == nil {
					w.changedFilters = map[string]bool{}
				}
				w.changedFilters[k[len("filter."):i]] = true
			}
		}
	}
	sort.Strings(over)
	w.config, w.filters.Config = cfg, over
	return nil
}

// filterChanged reports whether git would run a filter on path whose
// configuration changed since the run started: its blob id in the index or
// the stat cache was made by today's filter, so it is hashed again.
func (w *Workspace) filterChanged(rules *attrRules, path string) bool {
	if len(w.changedFilters) == 0 {
		return false
	}
	name, unsure := rules.filterOf(path)
	return unsure || w.changedFilters[name]
}

// startSkipWorktree returns the skip-worktree paths of the run's start,
// or nil when they are today's (no frozen view, or the same bits).
func (w *Workspace) startSkipWorktree(idx *Index) (map[string]bool, error) {
	f := w.frozen
	if f == nil {
		return nil, nil
	}
	if f.skip == nil {
		if odb.HashObject(odb.TypeBlob, indexBits(idx)) == f.top[record.ViewIndexBits] {
			return nil, nil
		}
		data, err := f.blob(w.db, record.ViewIndexBits)
		if err != nil {
			return nil, err
		}
		f.skip = skipWorktreeSet(data)
	}
	return f.skip, nil
}

// viewIgnores is the pair of ignore stacks that applies inside one folder:
// today's and the run's start's. A path is ignored only if both ignore it.
// Where the start's rules are today's (no frozen view, or the same files
// so far), start is nil and only now is consulted.
type viewIgnores struct {
	now, start *ignoreStack
	split      bool // start holds the start's rules, which differ from today's
}

func (v viewIgnores) ignored(path, name string, isDir bool) bool {
	return v.now.ignored(path, name, isDir) && (!v.split || v.start.ignored(path, name, isDir))
}

func (v viewIgnores) enter(path, name string) viewIgnores {
	out := viewIgnores{now: v.now.enter(path, name), split: v.split}
	if v.split {
		out.start = v.start.enter(path, name)
	}
	return out
}

// baseViewIgnores loads the repository-wide lists of today and, when the
// start's differ, of the run's start.
func (w *Workspace) baseViewIgnores(fold bool) (viewIgnores, error) {
	now, err := baseIgnores(w.repo.CommonDir, w.opts.ExcludesFile, fold)
	if err != nil {
		return viewIgnores{}, err
	}
	v := viewIgnores{now: now}
	f := w.frozen
	if f == nil {
		return v, nil
	}
	var start *ignoreStack
	same := true
	for _, name := range []string{record.ViewExcludesFile, record.ViewInfoExclude} {
		var file string
		for _, of := range w.outsideFiles() {
			if of[0] == name {
				file = of[1]
			}
		}
		data, _ := readIgnoreFile(file)
		if odb.HashObject(odb.TypeBlob, data) != f.top[name] && (len(data) != 0 || !f.top[name].IsZero()) {
			same = false
		}
		startData, err := f.blob(w.db, name)
		if err != nil {
			return viewIgnores{}, err
		}
		start = start.push(parseIgnore(startData, "", fold))
	}
	if !same {
		v.start, v.split = start, true
	}
	return v, nil
}

// readIgnoreFile reads an ignore file as baseIgnores does: missing or
// unreadable is empty.
func readIgnoreFile(name string) ([]byte, error) {
	if name == "" {
		return nil, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// pushFolder adds the .gitignore of folder dir: data (ok false when there
// is none, or the folder is ignored today) to today's stack, and the
// start's copy to the start's stack, splitting the two where they differ.
func (w *Workspace) pushFolder(v viewIgnores, dir string, data []byte, h record.Hash, ok bool, fold bool) viewIgnores {
	f := w.frozen
	if f == nil {
		if ok {
			v.now = v.now.push(parseIgnore(data, dir, fold))
		}
		return v
	}
	startH, had := f.ignores[dir]
	if !v.split && had == ok && (!ok || startH == h) {
		if ok {
			v.now = v.now.push(parseIgnore(data, dir, fold))
		}
		return v // the same rules as at the start
	}
	if !v.split {
		v.start, v.split = v.now, true
	}
	if ok {
		v.now = v.now.push(parseIgnore(data, dir, fold))
	}
	if had && !v.start.excludedDir() {
		if startData, err := w.db.ReadAs(startH, odb.TypeBlob); err == nil {
			v.start = v.start.push(parseIgnore(startData, dir, fold))
		}
	}
	return v
}

// viewKeyNames spells configuration keys as git's documentation does.
var viewKeyNames = map[string]string{
	"core.excludesfile": "core.excludesFile", "core.attributesfile": "core.attributesFile",
	"core.filemode": "core.fileMode", "core.ignorecase": "core.ignoreCase",
	"core.precomposeunicode": "core.precomposeUnicode", "core.checkstat": "core.checkStat",
	"core.sparsecheckout": "core.sparseCheckout", "core.sparsecheckoutcone": "core.sparseCheckoutCone",
	"gitguard.maxfilesize": "gitguard.maxFileSize",
}

// viewEntryNames says what each entry of a view tree stands for.
var viewEntryNames = map[string]string{
	record.ViewInfoExclude: ".git/info/exclude", record.ViewExcludesFile: "core.excludesFile",
	record.ViewInfoAttributes: ".git/info/attributes", record.ViewAttributesFile: "core.attributesFile",
}

// ViewChanges names what differs between two views (trees a snapshot's
// View names; zero for none): configuration keys, files outside the work
// tree, .gitignore files by path, index bits ("skip-worktree PATH", "no
// skip-worktree PATH"). It costs nothing when the trees are the same.
func (w *Workspace) ViewChanges(before, after record.Hash) ([]string, error) {
	if before == after || before.IsZero() || after.IsZero() {
		return nil, nil
	}
	changes, err := w.db.DiffTrees(before, after)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	read := func(f record.FileState) []byte {
		if !f.Exists() {
			return nil
		}
		data, _ := w.db.ReadAs(f.Hash, odb.TypeBlob)
		return data
	}
	for _, c := range changes {
		switch {
		case c.Path == record.ViewConfig:
			a, _ := parseViewConfig(read(c.Before))
			b, _ := parseViewConfig(read(c.After))
			for k := range a {
				if _, ok := b[k]; !ok {
					b[k] = nil
				}
			}
			for k, v := range b {
				if !slices.Equal(a[k], v) {
					if n, ok := viewKeyNames[k]; ok {
						k = n
					}
					add(k)
				}
			}
		case c.Path == record.ViewIndexBits:
			a, b := bitLines(read(c.Before)), bitLines(read(c.After))
			for l := range b {
				if !a[l] {
					add(l)
				}
			}
			for l := range a {
				if !b[l] {
					add("no " + l)
				}
			}
		case strings.HasPrefix(c.Path, record.ViewIgnores+"/"):
			add(record.QuotePath(strings.TrimPrefix(c.Path, record.ViewIgnores+"/")))
		default:
			if n, ok := viewEntryNames[c.Path]; ok {
				add(n)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// bitLines returns the index-bits lines, paths unquoted for display.
func bitLines(data []byte) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		bit, q, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if p, err := strconv.Unquote(q); err == nil {
			out[bit+" "+record.QuotePath(p)] = true
		}
	}
	return out
}
