package gitguard

import (
	"context"

	"github.com/gitguard/gitguard/internal/runread"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/record"
)

// readRunHead reads run id (the active run when empty) without the records
// of any call: commands then read the calls they need through the run
// index, so that what they cost does not grow with the run's length.
func (g *Guard) readRunHead(ctx context.Context, id record.RunID) (*patchstore.Run, error) {
	id, err := g.ResolveRun(ctx, id, false)
	if err != nil {
		return nil, err
	}
	var run *patchstore.Run
	if fullReads {
		run, err = g.store.ReadRun(ctx, id)
	} else {
		run, err = g.store.ReadRunCalls(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	return run, g.useRunSettings(ctx, run.Checkpoint) // status and undo look as the run does
}

// fullReads makes commands read every call and derive from the records
// what they would otherwise read from the run index: what tests compare
// the index with.
var fullReads bool

// reader reads the calls commands need through the run index.
func (g *Guard) reader() *runread.Reader { return &runread.Reader{Store: g.store, Full: fullReads} }
