package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/gitguard/gitguard"
)

// progressDelay is how long a walk runs before a progress line appears:
// most snapshots end well before it and print nothing.
const progressDelay = 2 * time.Second

// progress returns the workspace progress callback: a line on stderr,
// rewritten in place, for walks longer than progressDelay, only when
// stderr is a terminal and --quiet is off; nil otherwise.
func (e *env) progress() func(gitguard.Progress) {
	if e.quiet {
		return nil
	}
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return progressPrinter(e.stderr)
}

// progressPrinter draws workspace progress reports on w (a terminal).
func progressPrinter(w io.Writer) func(gitguard.Progress) {
	shown := false
	return func(p gitguard.Progress) {
		if p.Done {
			if shown {
				fmt.Fprint(w, "\r\x1b[K")
			}
			return
		}
		if p.Elapsed < progressDelay {
			return
		}
		shown = true
		fmt.Fprintf(w, "\r\x1b[Kgitguard: scanning the work tree: %d files, %d folders, %d hashed (%ds)",
			p.Entries, p.Dirs, p.Hashed, int(p.Elapsed.Seconds()))
	}
}
