package record

// PathStatus is the state of one path a run's calls touched, against the
// newest patch for it: what status reports, and what undo would do to it.
type PathStatus struct {
	Path     string
	State    Class
	Call     CallID
	Tool     string
	Before   State
	After    State
	Current  State
	IsDir    bool // a folder stands where the file should be
	Oversize bool
	// Reason says why the path is Unrecoverable, or cannot be looked at
	// on this system.
	Reason string
	// UndoneBy is the undo that took Call's change out (State is then
	// reapplyable, or merged when that undo kept someone else's edits).
	UndoneBy CallID
	// LastUndo is the newest undo that touched the path, when newer than
	// Call: with UndoneBy empty, the undo that left it conflicted.
	LastUndo CallID
	// SharedWith names the calls of other runs that ran at the same time
	// as Call and may equally have made its change: undo leaves the path
	// alone unless forced.
	SharedWith []CallRef
	// Uncertain is set when Call is uncertain: its process died and the
	// change was attributed to it from what changed while it may have run.
	Uncertain bool
	// Guess says why giving the change to Call is only a guess (see
	// FilePatch.Guess); State is then Guessed when the change, or
	// an edit of it, is in place. Undo leaves the path unless forced.
	Guess string
	// Undo is what undoing Call does to the path: ActionRestore,
	// ActionDelete, ActionMerge (someone edited it since; the merge keeps
	// their hunks), ActionConflict (their edits overlap the agent's: left
	// as it is) or ActionSkip (nothing to do, or left alone: see State and
	// Reason).
	Undo Action
}

// CallPatch is one path of one call, as it stands now: the call's own
// patch against the file, with its text.
type CallPatch struct {
	Path string
	// State is the call's own patch against the file now: applied,
	// reapplyable or conflicted.
	State    Class
	Current  State
	Before   State
	After    State
	Text     []byte // git-style patch of the call's change
	Binary   bool
	Oversize bool
	Added    int // lines the patch adds
	Removed  int // lines the patch removes
}

// SkippedPath is a path a call could not record, and why.
type SkippedPath struct {
	Call   CallID
	Path   string
	Reason string
}
