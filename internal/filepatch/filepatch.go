package filepatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Maker builds the file patches of calls from recorded states. It writes
// patch blobs and captured file contents to the object database and never
// a ref; it is as safe for concurrent use as its parts.
type Maker struct {
	DB    *odb.DB
	WS    *workspace.Workspace // nil for a Maker that captures nothing
	Store *patchstore.Store    // its clock stamps the patches
}

// Capture records the current state of each path, storing blobs. A path
// beneath a symlinked folder is refused (workspace.ErrSymlinkParent),
// unless that symlink is one of paths: then the call owns the link (an
// undo that turns a folder into a symlink or back), and beneath it the
// work tree holds nothing, as git sees it: the path is absent. Nothing is
// read through the link.
func (m *Maker) Capture(paths []string) ([]record.PathState, error) {
	out := make([]record.PathState, 0, len(paths))
	var scoped map[string]bool
	for _, p := range paths {
		fs, oversize, err := m.WS.Capture(p, true)
		if errors.Is(err, workspace.ErrSymlinkParent) {
			if scoped == nil {
				scoped = make(map[string]bool, len(paths))
				for _, q := range paths {
					scoped[q] = true
				}
			}
			if link, lerr := m.WS.LinkedParent(p); lerr == nil && scoped[link] {
				fs, oversize, err = record.FileState{Path: p}, false, nil
			}
		}
		if err != nil {
			return nil, err
		}
		if fs.Mode == record.ModeTree {
			fs.Mode, fs.Hash = record.ModeNone, record.ZeroHash // a folder is no file
		}
		out = append(out, record.PathState{Path: p, State: record.State{Mode: fs.Mode, Hash: fs.Hash}, Oversize: oversize})
	}
	return out, nil
}

// Overlay writes captured states over a base work tree; oversize files are
// left out, as a full snapshot leaves them out, and returned apart.
func (m *Maker) Overlay(base record.Hash, states []record.PathState) (record.Hash, []record.FileState, error) {
	var fs []record.FileState
	var over []record.FileState
	for _, s := range states {
		if s.Oversize {
			over = append(over, record.FileState{Path: s.Path, Mode: s.Mode, Hash: s.Hash})
			fs = append(fs, record.FileState{Path: s.Path})
			continue
		}
		fs = append(fs, record.FileState{Path: s.Path, Mode: s.Mode, Hash: s.Hash})
	}
	h, err := m.DB.Overlay(base, fs)
	return h, over, err
}

// Make builds the FilePatch of one path and stores its patch blob.
func (m *Maker) Make(callID record.CallID, path string, before, after record.State, oversize bool) (record.FilePatch, error) {
	fp := record.FilePatch{
		Path: path, BeforeHash: before.Hash, AfterHash: after.Hash, BeforeMode: before.Mode, AfterMode: after.Mode,
		ToolCallID: callID, CreatedAt: m.Store.Time(), Oversize: oversize,
	}
	var text []byte
	if oversize {
		text = patchstore.OversizePatch(path, before, after)
		fp.Binary = true
	} else {
		a, err := ReadState(m.DB, before)
		if err != nil {
			return fp, err
		}
		b, err := ReadState(m.DB, after)
		if err != nil {
			return fp, err
		}
		text, fp.Binary = patchstore.FormatPatch(path, before, after, a, b)
	}
	h, err := m.DB.Write(odb.TypeBlob, text)
	if err != nil {
		return fp, err
	}
	fp.PatchRef = h
	return fp, nil
}

// ReadState reads the content a state names: nil for an absent file or a
// gitlink, which have none.
func ReadState(db *odb.DB, st record.State) ([]byte, error) {
	if !st.Exists() || st.Mode == record.ModeGitlink {
		return nil, nil
	}
	return db.ReadAs(st.Hash, odb.TypeBlob)
}

// Tree diffs a whole-workspace call's start snapshot against snap.
func (m *Maker) Tree(ctx context.Context, callID record.CallID, e record.LedgerEntry, run *patchstore.Run, snap *workspace.Snapshot) ([]record.FilePatch, error) {
	changes, err := m.DB.DiffTrees(e.BeforeTree, snap.Worktree)
	if err != nil {
		return nil, err
	}
	// Files over the size limit are absent from both trees; bring them back
	// by hash so that growing past the limit is not mistaken for a delete.
	startOver, startSkipped, err := m.OversizeAt(ctx, run, e.StartSeq)
	if err != nil {
		return nil, err
	}
	nowOver := map[string]record.State{}
	for _, o := range snap.Oversize {
		nowOver[o.Path] = record.State{Mode: o.Mode, Hash: o.Hash}
	}
	byPath := map[string]*record.Change{}
	for i := range changes {
		byPath[changes[i].Path] = &changes[i]
	}
	type pair struct {
		before, after record.State
		oversize      bool
	}
	all := map[string]*pair{}
	for _, c := range changes {
		all[c.Path] = &pair{before: c.Before.State(), after: c.After.State()}
	}
	for p, st := range startOver {
		x := all[p]
		if x == nil {
			if ch, ok := byPath[p]; ok {
				x = &pair{after: ch.After.State()}
			} else {
				x = &pair{}
				if cur, err := m.DB.Lookup(snap.Worktree, p); err == nil {
					x.after = cur.State()
				}
			}
			all[p] = x
		}
		x.before, x.oversize = st, true
	}
	for p, st := range nowOver {
		x := all[p]
		if x == nil {
			x = &pair{}
			if prev, err := m.DB.Lookup(e.BeforeTree, p); err == nil {
				x.before = prev.State()
			}
			if b, ok := startOver[p]; ok {
				x.before = b
			}
			all[p] = x
		}
		x.after, x.oversize = st, true
	}
	// A path either snapshot could not read (or one below a folder it could
	// not read) is missing from its tree or holds the index's state: that
	// is no evidence the call changed it, so it gets no patch.
	finishSkipped := slices.Clone(snap.Skipped)
	paths := make([]string, 0, len(all))
	for p, x := range all {
		if x.before == x.after || workspace.SkippedCovers(finishSkipped, p) {
			continue
		}
		if workspace.SkippedCovers(startSkipped, p) {
			snap.Skipped = append(snap.Skipped, Unrecordable(p, ReasonUnreadAtStart))
			continue
		}
		if why := record.RecordablePath(p); why != "" {
			snap.Skipped = append(snap.Skipped, Unrecordable(p, why))
			continue
		}
		if len(e.Globs) > 0 && !workspace.MatchAny(e.Globs, p) {
			continue
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	sort.SliceStable(snap.Skipped, func(i, j int) bool { return snap.Skipped[i].Path < snap.Skipped[j].Path })
	out := make([]record.FilePatch, 0, len(paths))
	for _, p := range paths {
		x := all[p]
		fp, err := m.Make(callID, p, x.before, x.after, x.oversize)
		if err != nil {
			return nil, err
		}
		out = append(out, fp)
	}
	return out, nil
}

// OversizeAt returns the oversize files and the skipped paths recorded in
// checkpoint seq of run.
func (m *Maker) OversizeAt(ctx context.Context, run *patchstore.Run, seq int) (map[string]record.State, []record.Skipped, error) {
	out := map[string]record.State{}
	if seq == 0 {
		return out, nil, nil
	}
	en, err := m.Store.CheckpointAt(ctx, run.ID, seq)
	if errors.Is(err, patchstore.ErrUnknownCheckpoint) {
		return out, nil, nil // pruned: nothing was recorded by hash only then
	}
	if err != nil {
		return nil, nil, err
	}
	for _, o := range en.Checkpoint.Oversize {
		out[o.Path] = record.State{Mode: o.Mode, Hash: o.Hash}
	}
	return out, en.Checkpoint.Skipped, nil
}

// ReasonUnreadAtStart is why a whole-workspace call records no change of a
// path its start snapshot could not read (a folder without permission):
// the before state is unknown, so neither a creation nor an edit is claimed.
const ReasonUnreadAtStart = "unreadable when the call started; what the call changed in it is not recorded"

// Unrecordable is the skipped entry of path p, which the records cannot
// carry for reason why. The path is shown, not carried: bytes that are not
// UTF-8 become U+FFFD.
func Unrecordable(p, why string) record.Skipped {
	return record.Skipped{Path: strings.ToValidUTF8(p, "\uFFFD"), Reason: why}
}

// Net is the agent's net change to one path over some calls: the oldest
// before state and the newest after state (the root package's NetPatch).
type Net struct {
	Path     string
	Before   record.State
	After    record.State
	Calls    []record.CallID // oldest first
	Text     []byte          // git-style patch, `git apply`-able against Before
	Binary   bool
	Oversize bool
}

// NetPatches folds each path's patches (oldest first, as
// undoplan.PatchesByPath gives them) into its net change, leaving out the
// paths later calls put back. It returns record.ErrCorrupt when a patch
// blob is missing.
func NetPatches(db *odb.DB, byPath map[string][]*record.FilePatch, paths []string) ([]Net, error) {
	var out []Net
	for _, p := range paths {
		ps := byPath[p]
		first, last := ps[0], ps[len(ps)-1]
		np := Net{Path: p, Before: first.Before(), After: last.After()}
		for _, x := range ps {
			np.Calls = append(np.Calls, x.ToolCallID)
			np.Oversize = np.Oversize || x.Oversize
		}
		if np.Before == np.After {
			continue // later calls put it back
		}
		if len(ps) == 1 {
			text, err := db.ReadAs(first.PatchRef, "blob")
			if err != nil {
				return nil, fmt.Errorf("%w: patch of %s: %w", record.ErrCorrupt, p, err)
			}
			np.Text, np.Binary = text, first.Binary
		} else {
			fp, err := netText(db, p, np)
			if err != nil {
				return nil, err
			}
			np.Text, np.Binary = fp, np.Binary || np.Oversize
		}
		out = append(out, np)
	}
	return out, nil
}

// netText is the patch of path from np.Before to np.After.
func netText(db *odb.DB, path string, np Net) ([]byte, error) {
	if np.Oversize {
		return patchstore.OversizePatch(path, np.Before, np.After), nil
	}
	a, err := ReadState(db, np.Before)
	if err != nil {
		return nil, err
	}
	b, err := ReadState(db, np.After)
	if err != nil {
		return nil, err
	}
	text, _ := patchstore.FormatPatch(path, np.Before, np.After, a, b)
	return text, nil
}

// CountLines counts the added and removed lines of a git-style patch,
// reading only hunk bodies (so "+++" and "---" headers are not counted).
func CountLines(text []byte) (added, removed int) {
	inHunk := false
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		switch {
		case bytes.HasPrefix(line, []byte("@@")):
			inHunk = true
		case bytes.HasPrefix(line, []byte("diff --git ")):
			inHunk = false
		case !inHunk || len(line) == 0:
		case line[0] == '+':
			added++
		case line[0] == '-':
			removed++
		}
	}
	return added, removed
}

// Merge replaces the entries for paths with fresh ones.
func Merge(old, fresh []record.FilePatch, paths []string) []record.FilePatch {
	drop := map[string]bool{}
	for _, p := range paths {
		drop[p] = true
	}
	var out []record.FilePatch
	for _, p := range old {
		if !drop[p.Path] {
			out = append(out, p)
		}
	}
	out = append(out, fresh...)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Paths captures the after state of paths, each of which before holds,
// and diffs each against its before state; it returns the patches of the
// paths that changed and the states captured.
func (m *Maker) Paths(callID record.CallID, before []record.PathState, paths []string) ([]record.FilePatch, []record.PathState, error) {
	byPath := map[string]record.PathState{}
	for _, b := range before {
		byPath[b.Path] = b
	}
	after, err := m.Capture(paths)
	if err != nil {
		return nil, nil, err
	}
	var patches []record.FilePatch
	for _, a := range after {
		b := byPath[a.Path]
		if a.State == b.State {
			continue
		}
		fp, err := m.Make(callID, a.Path, b.State, a.State, b.Oversize || a.Oversize)
		if err != nil {
			return nil, nil, err
		}
		patches = append(patches, fp)
	}
	return patches, after, nil
}

// Checkpoint is the record of a checkpoint of kind from a fresh snapshot:
// its trees, HEAD, the index's conflicts, the files recorded by hash only
// and the paths it could not record (an oversize file whose name the
// records cannot carry moves to the latter).
func Checkpoint(snap *workspace.Snapshot, kind string) *record.Checkpoint {
	cp := &record.Checkpoint{
		Kind:         kind,
		Head:         record.Head{Commit: snap.Head.Commit, Ref: snap.Head.Ref},
		IndexTree:    snap.IndexTree,
		WorktreeTree: snap.Worktree,
		Unmerged:     snap.Unmerged,
	}
	if !snap.View.IsZero() {
		cp.View = &record.View{Seen: snap.View} // the start is carried (patchstore)
	}
	for _, o := range snap.Oversize {
		if why := record.RecordablePath(o.Path); why != "" {
			snap.Skipped = append(snap.Skipped, Unrecordable(o.Path, why))
			continue
		}
		cp.Oversize = append(cp.Oversize, record.FileState{Path: o.Path, Mode: o.Mode, Hash: o.Hash, Size: o.Size})
	}
	for _, s := range snap.Skipped {
		cp.Skipped = append(cp.Skipped, record.Skipped{Path: s.Path, Reason: s.Reason})
	}
	return cp
}

// Skipped is what a whole-workspace call's finish snapshot could not
// record (nil for other calls).
func Skipped(snap *workspace.Snapshot) []record.Skipped {
	if snap == nil || len(snap.Skipped) == 0 {
		return nil
	}
	return append([]record.Skipped(nil), snap.Skipped...)
}

// Partial is the checkpoint of kind that records states over tip's work
// tree: tip's tree with states overlaid (written), its index and its HEAD.
func (m *Maker) Partial(kind string, tip *patchstore.Run, states []record.PathState) (*record.Checkpoint, error) {
	wt, over, err := m.Overlay(tip.Checkpoint.WorktreeTree, states)
	if err != nil {
		return nil, err
	}
	return &record.Checkpoint{Kind: kind, WorktreeTree: wt, Partial: true, Oversize: over,
		IndexTree: tip.Checkpoint.IndexTree, Unmerged: tip.Checkpoint.Unmerged, Head: tip.Checkpoint.Head}, nil
}
