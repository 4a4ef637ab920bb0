package gitguard

import (
	"sort"
	"strings"

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

// reasonUnreadAtStart is why a whole-workspace call records no change of a
// path its start snapshot could not read (a folder without permission):
// the before state is unknown, so neither a creation nor an edit is claimed.
const reasonUnreadAtStart = "unreadable when the call started; what the call changed in it is not recorded"

// unrecordable is the skipped entry of path p, which the records cannot
// carry for reason why. The path is shown, not carried: bytes that are not
// UTF-8 become U+FFFD.
func unrecordable(p, why string) record.Skipped {
	return record.Skipped{Path: strings.ToValidUTF8(p, "\uFFFD"), Reason: why}
}

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

// quotedList joins paths for a sentence, each quoted as text output quotes
// names (record.QuotePath).
func quotedList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = record.QuotePath(p)
	}
	return strings.Join(q, ", ")
}
