package safewrite

import (
	"context"
	"errors"
	"fmt"

	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// Apply writes the plans of undo call undoID that write, in order (see
// undoplan.Order: deletes first, so that what the agent made of a path
// goes before the path's old type comes back). Before each write it looks
// at the file again: a plan made from the file as it was would lose an
// edit made since, so a path that changed (or whose parent folder is a
// symlink now, or where a folder stands now) is left as it is and its plan
// turned into a conflict with the reason. It returns which plans it wrote
// and how many it turned into conflicts; an error names the path and the
// undo call, which stays started, and the plans written before it are
// reported.
func (w *Writer) Apply(ctx context.Context, plans []record.Plan, order []int, undoID record.CallID) (written []bool, conflicts int, err error) {
	written = make([]bool, len(plans))
	for _, i := range order {
		it := &plans[i]
		if !it.Writes() {
			continue
		}
		left := func(why string) {
			if it.Action != record.ActionConflict {
				conflicts++
			}
			it.Action, it.Reason = record.ActionConflict, why
		}
		failed := func(err error) error {
			return fmt.Errorf("undo %s (undo call %s stays started; run the command again to finish): %w", it.Path, undoID, err)
		}
		now, _, err := w.WS.Capture(it.Path, false)
		if errors.Is(err, workspace.ErrSymlinkParent) {
			left("a parent folder is a symlink now; left as it is (run undo again)")
			continue
		}
		if err != nil {
			return written, conflicts, failed(err)
		}
		// A folder is what the plan found only where it replaces one.
		changed := now.State() != it.Current
		if now.Mode == record.ModeTree {
			changed = !it.ReplacesDir
		}
		if changed {
			left("changed while undo ran; left as it is (run undo again)")
			continue
		}
		if it.ReplacesDir {
			// The folder the agent made in place of the path: emptied of
			// its files by the deletes before, unless someone added one.
			err := w.RemoveDir(it.Path)
			if errors.Is(err, ErrFolderNotEmpty) {
				left(fmt.Sprintf("a folder is there now (%v); left as it is", errors.Unwrap(err)))
				continue
			}
			if err != nil {
				return written, conflicts, failed(err)
			}
		}
		if err := w.Write(ctx, it.Path, it.Target, it.Content); err != nil {
			return written, conflicts, failed(err)
		}
		written[i] = true
		fault.Point("undo.write")
	}
	return written, conflicts, nil
}
