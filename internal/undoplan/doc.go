// Package undoplan chooses the calls an undo or redo reverts and plans,
// per path, what reverting their patches does to the file as it is now
// (conflict.PlanPath, with the object database and git merge-file passed
// in), tallies what a plan leaves, and names what an undo's own call
// records (its tool, paths and the calls its finish marks).
//
// Invariants: planning writes no file and no ref (only merge scratch files
// under the state folder); a path another run's call may have made is
// left as it is unless forced; a name this system cannot hold is planned
// as left alone without looking at the file; the calls read are those the
// run index names, so planning costs what is undone, not the run's length.
package undoplan
