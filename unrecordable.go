package gitguard

import (
	"sort"

	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// A path the records cannot carry losslessly (a name that is not UTF-8,
// which JSON would rewrite; a spelling of .git git refuses) is skipped
// loudly: listed with the reason in the checkpoint, in the call's ledger
// entry and by status, and left out of the patches. The rest of the call
// is recorded as usual, so one odd name never makes the run unreadable.
// Names git allows and JSON carries (newline, tab, backslash, a leading
// dash) are recorded as they are and quoted in text output.

// callSkipped is what a whole-workspace call's finish snapshot could not
// record (nil for other calls).
func callSkipped(snap *workspace.Snapshot) []record.Skipped {
	if snap == nil || len(snap.Skipped) == 0 {
		return nil
	}
	return append([]record.Skipped(nil), snap.Skipped...)
}

// SkippedPath is a path a call could not record.
type SkippedPath struct {
	Call   record.CallID
	Path   string
	Reason string
}

// skippedPaths lists, once per path and newest call last, the paths the
// calls could not record.
func skippedPaths(calls []*patchstore.Call) []SkippedPath {
	byPath := map[string]SkippedPath{}
	for _, c := range calls {
		for _, sk := range c.Ledger.Skipped {
			byPath[sk.Path] = SkippedPath{Call: c.Ledger.CallID, Path: sk.Path, Reason: sk.Reason}
		}
	}
	out := make([]SkippedPath, 0, len(byPath))
	for _, s := range byPath {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
