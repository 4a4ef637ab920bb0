package odb

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/atomicfile"
	"github.com/gitguard/gitguard/internal/git"
)

// gitguard stores each checkpoint's objects as one small pack (a loose
// object costs a file, a 4 KiB block at least, and an fsync of its own) and
// keeps a list of the packs it wrote, with the modification time each had
// then, in <common dir>/gitguard/packs. The list lets it merge its own small
// packs as they pile up (Consolidate) and, after gitguard prune, rewrite
// them without the objects nothing reaches any more (DropUnreachable). A
// pack whose time changed since was freshened by git (an object in it was
// written again by someone, which git then does not duplicate), so its
// objects may be another program's: DropUnreachable leaves such a pack
// alone, and git's own gc keeps its unreachable objects through the usual
// grace period. Packs not on the list (git's, the user's) are never touched.

// StartPackBatch is StartBatch for the objects of one checkpoint: when the
// batch ends they are stored as one pack even when there are few.
func (db *DB) StartPackBatch() {
	db.StartBatch()
	db.bmu.Lock()
	db.packAlways++
	db.bmu.Unlock()
}

// EndPackBatch ends a batch started by StartPackBatch.
func (db *DB) EndPackBatch() error {
	db.bmu.Lock()
	db.packAlways--
	db.bmu.Unlock()
	return db.EndBatch()
}

// maxOwnList bounds the list of gitguard's packs read back.
const maxOwnList = 64 << 20

func (db *DB) ownListPath() string { return ownListFile(filepath.Dir(db.objDir)) }

// ownListFile is the list of the packs gitguard wrote in the repository
// whose common git dir is commonDir.
func ownListFile(commonDir string) string { return filepath.Join(commonDir, "gitguard", "packs") }

// readOwnList reads the list at path: a state file an agent may replace
// (see atomicfile.ReadFile).
func readOwnList(path string) ([]byte, error) { return atomicfile.ReadFile(path, maxOwnList) }

// ListedPacks returns the names (pack-<checksum>) on the list of the packs
// gitguard wrote in the repository whose common git dir is commonDir;
// none when the list cannot be read.
func ListedPacks(commonDir string) map[string]bool {
	listed := map[string]bool{}
	data, err := readOwnList(ownListFile(commonDir))
	if err != nil {
		return listed
	}
	for _, line := range strings.Split(string(data), "\n") {
		if name, _, _ := strings.Cut(line, " "); strings.HasPrefix(name, "pack-") {
			listed[name] = true
		}
	}
	return listed
}

// listOwnPack adds a pack gitguard wrote (base: its path without .pack) to
// the list. An append of one short line is atomic; a failure only means the
// pack is left to git's gc.
func (db *DB) listOwnPack(base string) {
	fi, err := os.Stat(base + ".pack")
	if err != nil {
		return
	}
	path := db.ownListPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := atomicfile.OpenAppend(path, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = fmt.Fprintf(f, "%s %d\n", filepath.Base(base), fi.ModTime().UnixNano())
}

// ownPack is a pack on the list that still exists.
type ownPack struct {
	name    string // pack-<checksum>
	objects int
	size    int64
	fresh   bool // its time is the one recorded: not freshened since
	kept    bool // a batch of a running process still guards it (.keep)
	mtime   time.Time
}

// staleKeep is the age past which a .keep file gitguard wrote is taken for
// the leftover of a process that died before its batch ended.
const staleKeep = time.Hour

// keptByBatch reports whether a batch still guards the pack base with a
// .keep file, removing one a dead process left behind: one whose pack was
// written (or freshened) more than staleKeep ago. A .keep's own time is
// its keep file's (keep.go), as old as the process that made it.
func keptByBatch(base string) bool {
	fi, err := os.Stat(base + ".keep")
	if err != nil {
		return false
	}
	if time.Since(fi.ModTime()) < staleKeep {
		return true
	}
	if pack, err := os.Stat(base + ".pack"); err == nil && time.Since(pack.ModTime()) < staleKeep {
		return true
	}
	if data, err := atomicfile.ReadFile(base+".keep", int64(len(keepNote))); err == nil && string(data) == keepNote {
		_ = os.Remove(base + ".keep")
		return false
	}
	return true // not ours: someone else keeps it
}

// readOwnPacks returns the packs on the list that still exist (git gc may
// have merged them away), and the list's lines as read.
func (db *DB) readOwnPacks() ([]ownPack, error) {
	data, err := readOwnList(db.ownListPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []ownPack
	for _, line := range strings.Split(string(data), "\n") {
		name, stamp, ok := strings.Cut(line, " ")
		if !ok || seen[name] || !strings.HasPrefix(name, "pack-") || strings.ContainsAny(name, `/\`) {
			continue
		}
		seen[name] = true
		base := filepath.Join(db.objDir, "pack", name)
		fi, err := os.Stat(base + ".pack")
		if err != nil {
			continue
		}
		n, err := indexCount(base + ".idx")
		if err != nil {
			continue
		}
		ns, _ := strconv.ParseInt(stamp, 10, 64)
		out = append(out, ownPack{name: name, objects: n, size: fi.Size(), fresh: fi.ModTime().UnixNano() == ns,
			kept: keptByBatch(base), mtime: fi.ModTime()})
	}
	return out, nil
}

// consolidateFrom is the number of listed packs from which Consolidate
// merges: below it, the packs are too few to slow lookups.
const consolidateFrom = 8

// consolidateBound is the number of listed packs from which
// ConsolidateIfMany merges. Between consolidateFrom and it, the packs cost a
// lookup little (an index each, read once per process) next to a merge,
// which reads every listed index and copies and syncs what it merges.
const consolidateBound = 32

// awaitedMergeBytes bounds what ConsolidateIfMany copies: the geometric
// cascade that merges a pack of a megabyte or more (a run's first snapshot
// holds the work tree's trees) is left to Consolidate, whose commands
// nobody waits on. The smallest two packs are merged whatever their size.
const awaitedMergeBytes = 1 << 20

// Consolidate merges gitguard's own packs geometrically, as git repack
// --geometric=2 does (see geometricSplit), so each object is rewritten a
// logarithmic number of times and the packs stay few. It only runs when
// at least consolidateFrom packs are listed, and skips when another
// process is consolidating.
func (db *DB) Consolidate() error { return db.consolidate(consolidateFrom, 0) }

// ConsolidateIfMany is Consolidate for a command somebody waits on (an
// agent's tool call): it merges only once consolidateBound packs are
// listed, and no more than awaitedMergeBytes of them, leaving the routine
// merges to the commands nobody waits on.
func (db *DB) ConsolidateIfMany() error {
	return db.consolidate(consolidateBound, awaitedMergeBytes)
}

// consolidate merges when from packs are listed; maxBytes, when not zero,
// bounds the bytes merged (see awaitedMergeBytes).
func (db *DB) consolidate(from int, maxBytes int64) error {
	// Most calls find a short list and stop here.
	if data, err := readOwnList(db.ownListPath()); err != nil || bytes.Count(data, []byte("\n")) < from {
		return nil
	}
	packs, err := db.readOwnPacks()
	if err != nil || len(packs) < from {
		return err
	}
	if len(db.Maintenance()) > 0 {
		return nil // deleting packs now could fail it (see rewriteOwn)
	}
	unlock, ok := db.lockOwnPacks()
	if !ok {
		return nil
	}
	defer unlock()
	if packs, err = db.readOwnPacks(); err != nil {
		return err
	}
	// A freshened pack keeps its own time (see DropUnreachable).
	// A kept pack is still in flight: its objects may be named by no ref yet.
	packs = slices.DeleteFunc(packs, func(p ownPack) bool { return !p.fresh || p.kept })
	slices.SortFunc(packs, func(a, b ownPack) int { return a.objects - b.objects })
	split := geometricSplit(packs)
	if maxBytes > 0 {
		var size int64
		for i, p := range packs[:split] {
			if i >= 2 && size+p.size > maxBytes {
				split = i
				break
			}
			size += p.size
		}
	}
	if split < 2 {
		return nil
	}
	return db.rewriteOwn(packs[:split], func(git.Hash) bool { return true })
}

// geometricSplit returns how many of packs, sorted by object count, to
// merge into one so that the packs left form a geometric progression: each
// holds at least twice the objects of the next smaller one, so that however
// many packs came one per command, they are never more than the logarithm
// of their objects. The packs that already form such a progression are
// counted from the largest down; all below them are merged, and so are the
// next larger ones that the merged pack would not be half of.
func geometricSplit(packs []ownPack) int {
	split := len(packs) - 1
	for split > 0 && packs[split].objects >= 2*packs[split-1].objects {
		split--
	}
	if split == 0 {
		return 0 // already a progression
	}
	split++ // packs[split-1] is not in the progression
	total := 0
	for _, p := range packs[:split] {
		total += p.objects
	}
	for split < len(packs) && packs[split].objects < 2*total {
		total += packs[split].objects
		split++
	}
	return split
}

// rewriteOwn writes the objects of packs that keep accepts as one new pack
// (none when it accepts none), makes it durable, then deletes packs and
// updates the list.
func (db *DB) rewriteOwn(packs []ownPack, keep func(git.Hash) bool) error {
	// Sorted and compacted rather than deduplicated through a map: a merge
	// of the run's large packs lists a hundred thousand objects or more,
	// and a set of them would take several times the memory of the list.
	var ids []git.Hash
	for _, p := range packs {
		idx, err := mapIndex(filepath.Join(db.objDir, "pack", p.name+".idx"))
		if err != nil {
			return err
		}
		ids = slices.Grow(ids, idx.count)
		for i := 0; i < idx.count; i++ {
			ids = append(ids, git.Hash(idx.names[i*20:i*20+20]))
		}
		idx.unmap()
	}
	slices.SortFunc(ids, func(a, b git.Hash) int { return bytes.Compare(a[:], b[:]) })
	ids = slices.Compact(ids)
	ids = slices.DeleteFunc(ids, func(h git.Hash) bool { return !keep(h) })
	newName := ""
	if len(ids) > 0 {
		base, err := db.copyOwnPacks(packs, ids)
		if errors.Is(err, errNotHere) {
			base, err = db.writePackFile(ids, db.Read, false)
		}
		if err != nil {
			return err
		}
		if err := db.Sync(); err != nil {
			return err
		}
		newName = filepath.Base(base)
	}
	gone := map[string]bool{}
	for _, p := range packs {
		if p.name == newName {
			continue // the same objects: the same pack
		}
		if len(db.Maintenance()) > 0 {
			// A git repack lists the packs and then opens each; one
			// deleted in between makes it fail ("unable to add recent
			// objects"). The merged pack is listed beside the old ones,
			// and the next rewrite takes them out.
			break
		}
		base := filepath.Join(db.objDir, "pack", p.name)
		// The index first: a listed index must never name a missing pack.
		if err := os.Remove(base + ".idx"); err != nil && !errors.Is(err, os.ErrNotExist) {
			continue // (Windows: open elsewhere) left for next time
		}
		_ = os.Remove(base + ".pack")
		for _, ext := range []string{".rev", ".mtimes", ".bitmap"} {
			_ = os.Remove(base + ext)
		}
		gone[p.name] = true
	}
	db.Rescan()
	return db.rewriteOwnList(gone, newName)
}

// rewriteOwnList drops the names in gone from the list and adds added. The
// caller holds the lock; a line another process appends meanwhile may be
// lost, which leaves that pack to git's gc.
func (db *DB) rewriteOwnList(gone map[string]bool, added string) error {
	path := db.ownListPath()
	data, err := readOwnList(path)
	if errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge) {
		data = nil // rewritten whole below: its packs are left to git's gc
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var b strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		name, _, ok := strings.Cut(line, " ")
		if ok && !gone[name] && name != added {
			b.WriteString(line + "\n")
		}
	}
	if added != "" {
		if fi, err := os.Stat(filepath.Join(db.objDir, "pack", added+".pack")); err == nil {
			fmt.Fprintf(&b, "%s %d\n", added, fi.ModTime().UnixNano())
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// lockOwnPacks takes the lock that serialises rewrites of gitguard's packs;
// false when another process holds it. A lock older than ten minutes was
// left by a process that died.
func (db *DB) lockOwnPacks() (func(), bool) {
	path := db.ownListPath() + ".lock"
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	for try := 0; try < 2; try++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, true
		}
		fi, serr := os.Stat(path)
		if serr != nil || time.Since(fi.ModTime()) < 10*time.Minute {
			return nil, false
		}
		os.Remove(path)
	}
	return nil, false
}

// DropUnreachable rewrites gitguard's own packs without the objects
// reachable reports false for, and returns the bytes freed. It leaves
// alone packs freshened since gitguard wrote them (their objects may be
// another program's) and packs modified after notBefore (a writer that has
// not moved its ref yet may need them). reachable must say true for every
// object any ref, reflog, index or other run can reach.
func (db *DB) DropUnreachable(reachable func(git.Hash) bool, notBefore time.Time) (int64, error) {
	if marks := db.Maintenance(); len(marks) > 0 {
		return 0, fmt.Errorf("git maintenance is running (%s); deleting packs now could make it fail: try again when it is done", strings.Join(marks, ", "))
	}
	unlock, ok := db.lockOwnPacks()
	if !ok {
		return 0, fmt.Errorf("gitguard's packs are being rewritten by another process; try again")
	}
	defer unlock()
	packs, err := db.readOwnPacks()
	if err != nil {
		return 0, err
	}
	var chosen []ownPack
	var before int64
	for _, p := range packs {
		if p.fresh && !p.kept && p.mtime.Before(notBefore) {
			chosen = append(chosen, p)
			before += p.size
		}
	}
	if len(chosen) == 0 {
		return 0, nil
	}
	if err := db.rewriteOwn(chosen, reachable); err != nil {
		return 0, err
	}
	// Objects are gone: a watcher building on an older snapshot must walk
	// again (workspace's packStamp watches this file).
	marker := filepath.Join(filepath.Dir(db.ownListPath()), "packs.pruned")
	if err := os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		return 0, err
	}
	after, err := db.readOwnPacks()
	if err != nil {
		return 0, err
	}
	var now int64
	for _, p := range after {
		if p.fresh && p.mtime.Before(notBefore) {
			now += p.size
		}
	}
	// The merged pack is newer than notBefore: count it too.
	for _, p := range after {
		if !p.mtime.Before(notBefore) && !slices.ContainsFunc(packs, func(q ownPack) bool { return q.name == p.name }) {
			now += p.size
		}
	}
	return max(before-now, 0), nil
}
