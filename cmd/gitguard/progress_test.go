package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/gitguard/gitguard"
)

func TestProgressOnlyOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	e := &env{stderr: &buf}
	if e.progress() != nil {
		t.Error("progress callback for a stderr that is not a terminal")
	}
	e.quiet = true
	if e.progress() != nil {
		t.Error("progress callback with --quiet")
	}
}

func TestProgressPrinter(t *testing.T) {
	var buf bytes.Buffer
	p := progressPrinter(&buf)
	p(gitguard.Progress{Entries: 10, Elapsed: progressDelay - time.Millisecond})
	if buf.Len() != 0 {
		t.Fatalf("printed before the delay: %q", buf.String())
	}
	p(gitguard.Progress{Entries: 10, Tracked: 100, Dirs: 2, Hashed: 1, Elapsed: progressDelay})
	want := "\r\x1b[Kgitguard: scanning the work tree: 10 files, 2 folders, 1 hashed (2s)"
	if got := buf.String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	p(gitguard.Progress{Done: true})
	if got := buf.String(); got != want+"\r\x1b[K" {
		t.Fatalf("line not cleared at the end: %q", got)
	}
	var quiet bytes.Buffer
	q := progressPrinter(&quiet)
	q(gitguard.Progress{Done: true})
	if quiet.Len() != 0 {
		t.Errorf("a short walk printed %q", quiet.String())
	}
}
