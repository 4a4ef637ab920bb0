package gitguard

import (
	"errors"

	"github.com/gitguard/gitguard/workspace"
)

// ErrUsage marks errors caused by bad arguments (exit 2 in the CLI).
var ErrUsage = errors.New("bad argument")

type usageError struct{ err error }

func (e *usageError) Error() string   { return e.err.Error() }
func (e *usageError) Unwrap() []error { return []error{e.err, ErrUsage} }
func usageErr(err error) error        { return &usageError{err} }
func validGlob(g string) bool         { return workspace.ValidGlob(g) }
