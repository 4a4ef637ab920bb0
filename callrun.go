package gitguard

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/record"
)

// ErrAmbiguousCall is returned when a call id names calls in several runs
// and no run was given.
var ErrAmbiguousCall = errors.New("call id is in several runs")

// ResolveCallRun picks the run that holds call: explicit if given, else the
// active run when it has the call, else the one run of the repository that
// has it (tool-use ids are unique, so a call found after its run finished
// is still found). It returns ErrUnknownCall when no run has it and
// ErrAmbiguousCall, listing the runs, when several do.
func (g *Guard) ResolveCallRun(ctx context.Context, explicit record.RunID, call record.CallID) (record.RunID, error) {
	if explicit != "" {
		return explicit, explicit.Validate()
	}
	if err := call.Validate(); err != nil {
		return "", usageErr(err)
	}
	id, found, err := runread.FindCall(ctx, g.store, call)
	if err != nil {
		return "", err
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("call %q is in no run of this repository: %w", call, ErrUnknownCall)
	case 1:
		return id, nil
	}
	return "", usageErr(fmt.Errorf("%w: %s; name one with --run", ErrAmbiguousCall, strings.Join(found, ", ")))
}
