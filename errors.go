package gitguard

import (
	"errors"

	"github.com/gitguard/gitguard/workspace"
)

// ErrUsage marks errors caused by bad arguments (exit 2 in the CLI).
var ErrUsage = errors.New("bad argument")

// UsageError is bad input to a command or an API call: its message is
// Err's, and it wraps both Err and ErrUsage.
type UsageError struct{ Err error }

func (e *UsageError) Error() string   { return e.Err.Error() }
func (e *UsageError) Unwrap() []error { return []error{e.Err, ErrUsage} }

func usageErr(err error) error { return &UsageError{err} }
func validGlob(g string) bool  { return workspace.ValidGlob(g) }
