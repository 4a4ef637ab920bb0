package gitguard

import (
	"time"

	"github.com/gitguard/gitguard/workspace"
)

// WorkspaceOptions tune snapshots (see Options). The zero value is valid.
type WorkspaceOptions struct {
	// ExcludesFile is the global ignore file (git's core.excludesFile
	// default when empty).
	ExcludesFile string
	// AttributesFile is the global attributes file (git's
	// core.attributesFile default when empty).
	AttributesFile string
	// Exclude holds doublestar globs of untracked paths never recorded,
	// on top of git's ignore rules.
	Exclude []string
	// MaxFileSize is the size above which a changed file is recorded by
	// hash, size and mode only. Zero means 64 MiB; negative, no limit.
	MaxFileSize int64
	// Workers bounds parallel lstat and hashing; zero means 2×GOMAXPROCS.
	Workers int
	// UseDaemon lets snapshots ask the work tree's watch daemon, when one
	// runs, instead of walking the tree. Open and OpenRecords then also
	// wait for the records the daemon answered a hook before writing (a
	// tool use's end), so that the Guard reads them.
	UseDaemon bool
	// Progress, if set, is called about every 200ms while a snapshot walks
	// the work tree, and once more with Done set when the walk ends. It is
	// called from a goroutine of its own, never concurrently with itself,
	// and must return quickly.
	Progress func(Progress)
}

// Progress reports how far a snapshot's walk of the work tree has come.
type Progress struct {
	Entries int           // tracked entries and untracked files looked at so far
	Tracked int           // tracked entries in the index
	Dirs    int           // folders read so far
	Hashed  int           // files read and hashed so far
	Elapsed time.Duration // since the walk started
	Done    bool          // the walk is over; this is the last report
}

// options are the workspace's options for o.
func (o WorkspaceOptions) options() workspace.Options {
	w := workspace.Options{ExcludesFile: o.ExcludesFile, AttributesFile: o.AttributesFile, Exclude: o.Exclude,
		MaxFileSize: o.MaxFileSize, Workers: o.Workers, UseDaemon: o.UseDaemon}
	if f := o.Progress; f != nil {
		w.Progress = func(p workspace.Progress) { f(Progress(p)) }
	}
	return w
}
