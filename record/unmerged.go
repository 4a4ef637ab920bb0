package record

import (
	"fmt"
	"strings"
)

// Operation names the git command a repository is in the middle of, as
// git marks it in the worktree's git dir.
type Operation string

// Operations git can leave in progress. OpNone with unmerged paths means
// git left conflicts without marking an operation: git stash pop or
// apply, or git checkout -m.
const (
	OpNone       Operation = ""
	OpMerge      Operation = "merge"       // MERGE_HEAD
	OpRebase     Operation = "rebase"      // rebase-merge/ or rebase-apply/
	OpCherryPick Operation = "cherry-pick" // CHERRY_PICK_HEAD
	OpRevert     Operation = "revert"      // REVERT_HEAD
	OpAm         Operation = "am"          // rebase-apply/applying
	OpBisect     Operation = "bisect"      // BISECT_LOG
)

// Valid reports whether o is one of the operations above.
func (o Operation) Valid() bool {
	switch o {
	case OpNone, OpMerge, OpRebase, OpCherryPick, OpRevert, OpAm, OpBisect:
		return true
	}
	return false
}

// Unmerged records an index that held conflict entries when a checkpoint
// was taken. The work tree's content of each path (conflict markers and
// all) is in the checkpoint's worktree/ tree like any file; this record
// keeps what the index said: which stages each path had. The stage blobs
// are the user's (git wrote them); a checkpoint names them for the record
// and does not keep them reachable.
type Unmerged struct {
	Operation Operation      `json:"operation,omitempty"`
	Paths     []UnmergedPath `json:"paths"`
}

// UnmergedPath is one path with conflict entries in the index.
type UnmergedPath struct {
	Path string `json:"path"`
	// Stages holds the entries present, ordered by stage: 1 the common
	// ancestor, 2 ours (HEAD), 3 theirs. A missing stage is a side that
	// deleted (or never had) the path.
	Stages []Stage `json:"stages"`
}

// Stage is one conflict entry of the index.
type Stage struct {
	Stage int  `json:"stage"`
	Mode  Mode `json:"mode"`
	Hash  Hash `json:"hash"`
}

// Has reports whether stage n is present.
func (p UnmergedPath) Has(n int) bool {
	for _, s := range p.Stages {
		if s.Stage == n {
			return true
		}
	}
	return false
}

// Conflict describes the conflict as git status does: "both modified",
// "deleted by them", and so on.
func (p UnmergedPath) Conflict() string {
	base, ours, theirs := p.Has(1), p.Has(2), p.Has(3)
	switch {
	case ours && theirs && base:
		return "both modified"
	case ours && theirs:
		return "both added"
	case base && theirs:
		return "deleted by us"
	case base && ours:
		return "deleted by them"
	case ours:
		return "added by us"
	case theirs:
		return "added by them"
	}
	return "both deleted"
}

// Names lists the paths.
func (u *Unmerged) Names() []string {
	out := make([]string, len(u.Paths))
	for i, p := range u.Paths {
		out[i] = p.Path
	}
	return out
}

// Validate checks an unmerged record as read back.
func (u *Unmerged) Validate() error {
	if !u.Operation.Valid() {
		return fmt.Errorf("%w: unmerged: unknown operation %q", ErrCorrupt, u.Operation)
	}
	prev := ""
	for i, p := range u.Paths {
		if err := ValidatePath(p.Path); err != nil {
			return fmt.Errorf("%w: unmerged: %w", ErrCorrupt, err)
		}
		if i > 0 && strings.Compare(prev, p.Path) >= 0 {
			return fmt.Errorf("%w: unmerged: paths not sorted or repeated at %q", ErrCorrupt, p.Path)
		}
		prev = p.Path
		if len(p.Stages) == 0 || len(p.Stages) > 3 {
			return fmt.Errorf("%w: unmerged: %s has %d stages", ErrCorrupt, p.Path, len(p.Stages))
		}
		last := 0
		for _, s := range p.Stages {
			if s.Stage <= last || s.Stage > 3 {
				return fmt.Errorf("%w: unmerged: %s: stage %d out of order", ErrCorrupt, p.Path, s.Stage)
			}
			last = s.Stage
			switch s.Mode {
			case ModeFile, ModeExec, ModeSymlink, ModeGitlink:
			default:
				return fmt.Errorf("%w: unmerged: %s: stage %d has mode %s", ErrCorrupt, p.Path, s.Stage, s.Mode)
			}
		}
	}
	return nil
}
