package gitguard

import (
	"errors"
	"fmt"

	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/workspace"
)

// The option checks below are the ones every front end shares: the CLI
// calls them on its flags, the JSON-lines protocol on its requests, and the
// methods that take the options call them again, so a Go caller gets the
// same answer. Every error they return wraps ErrUsage.

// Validate reports whether the options describe one call: a valid call id,
// globs in doublestar syntax (workspace.ErrBadGlob), and an idempotency and
// replay policy that are either unset or one of the known values.
func (o CallOptions) Validate() error {
	if err := o.CallID.Validate(); err != nil {
		return usageErr(err)
	}
	if err := validateGlobs(o.Globs); err != nil {
		return err
	}
	if o.Idempotency != "" {
		if _, err := record.ParseIdempotency(string(o.Idempotency)); err != nil {
			return usageErr(err)
		}
	}
	if o.ReplayPolicy != "" {
		if _, err := record.ParseReplayPolicy(string(o.ReplayPolicy)); err != nil {
			return usageErr(err)
		}
	}
	return nil
}

// Validate reports whether Status is empty (succeeded) or one of
// succeeded, failed and uncertain.
func (o FinishOptions) Validate() error {
	switch o.Status {
	case "", record.StatusSucceeded, record.StatusFailed, record.StatusUncertain:
		return nil
	}
	return usageErr(fmt.Errorf("finish status %q: want succeeded, failed or uncertain", o.Status))
}

// Validate reports whether the options choose at most one of a call and a
// checkpoint to diff since, with globs in doublestar syntax.
func (o DiffOptions) Validate() error {
	if o.Call != "" && o.Since != nil {
		return usageErr(errors.New("give either a call or a checkpoint to diff since, not both"))
	}
	return validateGlobs(o.Globs)
}

// Validate reports whether the options choose at most one of a call, a
// checkpoint to undo back to and the whole run, with globs in doublestar
// syntax.
func (o UndoOptions) Validate() error {
	n := 0
	for _, set := range []bool{o.Call != "", o.To != nil, o.WholeRun} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usageErr(errors.New("give at most one of call, to and all: one call, everything after a checkpoint, or the whole run"))
	}
	return validateGlobs(o.Globs)
}

// ValidateRedo is Validate for Redo, which reverts one undo call: the
// newest one, or Call; a checkpoint or the whole run makes no sense there.
func (o UndoOptions) ValidateRedo() error {
	if o.To != nil || o.WholeRun {
		return usageErr(errors.New("redo takes an undo call, not a checkpoint or the whole run"))
	}
	return o.Validate()
}

// validateGlobs reports the first glob that is not doublestar syntax; the
// error wraps both workspace.ErrBadGlob and ErrUsage.
func validateGlobs(globs []string) error {
	for _, gl := range globs {
		if !validGlob(gl) {
			return usageErr(fmt.Errorf("glob %q: %w", gl, workspace.ErrBadGlob))
		}
	}
	return nil
}
