package record

import "fmt"

// Class is the class of one path a call touched: how its content now
// compares with the call's patch. (State is a file's content and mode.)
type Class int

// The classes.
const (
	// Applied: the current content is the agent's after state.
	Applied Class = iota
	// Reapplyable: the current content is the agent's before state.
	Reapplyable
	// Conflicted: neither; someone else changed the path.
	Conflicted
	// Merged: someone else changed the path too, and a three-way merge
	// takes (or took) the agent's hunks out and keeps theirs.
	Merged
	// Irrecoverable ("unrecoverable"): the agent's change is in place,
	// but the content undo would need was over the size limit and recorded
	// by hash only. Classification never returns it; status reports it,
	// and undo plans the ActionUnrecoverable action for it.
	Irrecoverable
	// Guessed ("uncertain"): the change is in place (or someone edited it
	// since), but it was given to a call whose process stopped without a
	// word, and no evidence of the call's end bounds it: it may be the
	// user's (see FilePatch.Guess). Classification never returns it;
	// status reports it, and undo leaves the path unless forced.
	Guessed
)

var classNames = [...]string{"applied", "reapplyable", "conflicted", "merged", "unrecoverable", "uncertain"}

// String returns "applied", "reapplyable", "conflicted", "merged",
// "unrecoverable" or "uncertain".
func (c Class) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("State(%d)", int(c))
}

// MarshalText encodes the class by name.
func (c Class) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Action is what undo does to one path.
type Action string

// The actions of an undo plan.
const (
	ActionRestore       Action = "restore"       // write the before content and mode
	ActionDelete        Action = "delete"        // the agent created it
	ActionRecreate      Action = "recreate"      // the agent deleted it
	ActionMerge         Action = "merge"         // take the agent's hunks out, keep the user's
	ActionConflict      Action = "conflict"      // overlapping edits: left as it is (or markers)
	ActionSkip          Action = "skip"          // already as before
	ActionUnrecoverable Action = "unrecoverable" // before content was recorded by hash only
	ActionShared        Action = "shared"        // another session's call may have made the change: left as it is
	ActionUncertain     Action = "uncertain"     // only guessed to be the call's change (FilePatch.Guess): left as it is
)

// Plan is what undo does to one path, and why.
type Plan struct {
	Path    string
	State   Class    // against the newest patch being undone
	Action  Action   // what happens to the file
	Calls   []CallID // the patches undone, newest first
	Current State
	Target  State // what undo writes (absent: delete)
	// Content is what undo writes (nil for Skip, Delete and conflicts left
	// as they are).
	Content []byte
	Reason  string
	// ReplacesDir says a folder is there now where the agent's call left
	// the path absent (it made a folder of a file or a symlink): undo
	// removes the folder, once the deletes of the same plan have emptied it
	// of the files the agent made, and then writes Target. Current is
	// absent, as a folder holds no file state.
	ReplacesDir bool
}

// Writes reports whether carrying out the plan changes the file: a
// conflict is written only when it carries conflict markers.
func (p *Plan) Writes() bool {
	switch p.Action {
	case ActionRestore, ActionDelete, ActionRecreate, ActionMerge:
		return true
	case ActionConflict:
		return p.Content != nil
	}
	return false
}
