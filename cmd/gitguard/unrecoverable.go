package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// sizeText renders a byte count for people: 104857600 is "100 MiB".
func sizeText(n int64) string {
	const unit = 1024
	if n < unit || n >= 1<<62 {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %ciB", int64(v), "KMGTP"[exp])
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[exp])
}

// unrecoverableNote is the plain sentence for n paths undo cannot revert
// because their content was over the size limit.
func unrecoverableNote(n int, limit int64) string {
	return fmt.Sprintf("%d path(s) unrecoverable: over the size limit (max_file_size, %s), their content was recorded by hash only; undo leaves them as they are", n, sizeText(limit))
}

// countUnrecoverable counts the planned paths undo cannot revert for lack
// of content, those of passed-over calls included.
func countUnrecoverable(res *gitguard.UndoResult) int {
	n := 0
	for _, it := range res.Items {
		if it.Action == gitguard.ActionUnrecoverable {
			n++
		}
	}
	if len(res.Undone) == 0 {
		for _, pc := range res.Passed {
			for _, it := range pc.Left {
				if it.Action == gitguard.ActionUnrecoverable {
					n++
				}
			}
		}
	}
	return n
}

// printStatusNotes says what status found that undo cannot revert: paths
// over the size limit, and paths the calls could not record.
func printStatusNotes(e *env, rep *gitguard.StatusReport) {
	n := 0
	for _, p := range rep.Paths {
		if p.State == gitguard.Unrecoverable {
			n++
		}
	}
	if n > 0 {
		e.printf("%s\n", unrecoverableNote(n, rep.MaxFileSize))
	}
	if len(rep.Skipped) > 0 {
		e.printf("not recorded (undo cannot revert them):\n")
		for _, s := range rep.Skipped {
			e.printf("  skipped %s (%s): %s\n", record.QuotePath(s.Path), s.Call, s.Reason)
		}
	}
	printViewChanges(e.printf, rep.ViewChanges)
}

// viewNotes notes on stderr what changed what gitguard sees: the calls that
// did, and what differs now from the run's start.
func viewNotes(e *env, calls []gitguard.ViewChange, now []string) {
	if e.quiet {
		return
	}
	for _, v := range calls {
		fmt.Fprintf(e.stderr, "gitguard: note: %s; the run still sees as it started\n", oneLineMessage(v.String()))
	}
	if len(now) > 0 {
		fmt.Fprintf(e.stderr, "gitguard: note: what gitguard sees differs from the run's start: %s; the run still sees as it started\n",
			oneLineMessage(strings.Join(now, ", ")))
	}
}

// printViewChanges names the calls that changed what gitguard sees; the
// run's snapshots kept the view it started with.
func printViewChanges(printf func(string, ...any), vs []gitguard.ViewChange) {
	for _, v := range vs {
		printf("%s (the run still sees as it started)\n", oneLineMessage(v.String()))
	}
}

// oneLineMessage keeps an error message on its one line: a newline, a
// carriage return or another control character (from a file name the
// message quotes raw) is written as its C escape, as git quotes names, so
// that no name can forge a line of stderr or drive the terminal.
func oneLineMessage(msg string) string {
	control := func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }
	if !strings.ContainsFunc(msg, control) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		if control(r) {
			q := strconv.QuoteRune(r) // '\n', '\x1b'
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
