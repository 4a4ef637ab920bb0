package conflict

import "github.com/gitguard/gitguard/record"

// OversizeLoss says why reverting patch p, with the path holding p's after
// state, would lose content ("" when it would not). A file over the size
// limit is recorded by hash, size and mode only: when its before content
// is not in the object database there is nothing to write back; when its
// after content (what is there now) is not, overwriting or deleting it
// could never be redone, since the undo can record it by hash only too —
// every undo must be undoable. has reports whether a blob is in the object
// database.
func OversizeLoss(p *record.FilePatch, has func(record.Hash) bool) string {
	if !p.Oversize {
		return ""
	}
	before, after := p.Before(), p.After()
	switch {
	case before.Exists() && before.Mode != record.ModeGitlink && !has(before.Hash):
		return "its content before the call was over the size limit and recorded by hash only"
	case after.Exists() && after.Mode != record.ModeGitlink && !has(after.Hash):
		return "the agent's version is over the size limit and recorded by hash only: replacing it could not be undone"
	}
	return ""
}
