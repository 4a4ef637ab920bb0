package gitguard

import (
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// StoreOf and DBOf give the package's external tests the parts a Guard
// keeps to itself.
func StoreOf(g *Guard) *patchstore.Store { return g.store }

// DBOf returns the Guard's object database.
func DBOf(g *Guard) *odb.DB { return g.db }

// WorkspaceOf returns the Guard's workspace.
func WorkspaceOf(g *Guard) *workspace.Workspace { return g.ws }

// SetFullReads makes commands read every call instead of the run index,
// and returns a function that restores the default.
func SetFullReads(on bool) func() {
	was := fullReads
	fullReads = on
	return func() { fullReads = was }
}

// NewRun is the API's view of a run the store read.
func NewRun(r *patchstore.Run) *Run { return newRun(r) }
