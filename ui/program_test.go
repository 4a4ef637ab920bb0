package ui

import (
	"context"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestRealProgram runs the model under bubbletea's own event loop, with
// commands on their own goroutines and a fast poll racing them, and undoes
// the middle call. Run with -race it checks that nothing the view draws is
// written by a command.
func TestRealProgram(t *testing.T) {
	h := newHarness(t, Options{})
	m := New(h.ctx, h.g, Options{Poll: 5 * time.Millisecond})
	seen := make(chan tea.Msg, 100)
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg.(type) {
		case ledgerMsg, confirmMsg, wroteMsg, inspectedMsg:
			select {
			case seen <- msg:
			default:
			}
		}
		return msg
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(nil), tea.WithOutput(io.Discard),
		tea.WithWindowSize(80, 24), tea.WithoutSignalHandler(), tea.WithFilter(filter))
	done := make(chan error, 1)
	go func() {
		_, err := p.Run()
		done <- err
	}()
	wait := func(want func(tea.Msg) bool) {
		t.Helper()
		for {
			select {
			case msg := <-seen:
				if want(msg) {
					return
				}
			case err := <-done:
				t.Fatalf("program ended early: %v", err)
			case <-ctx.Done():
				t.Fatal("gave up waiting for the program")
			}
		}
	}
	wait(func(msg tea.Msg) bool { _, ok := msg.(ledgerMsg); return ok })
	p.Send(keyPress("down"))
	p.Send(keyPress("u"))
	wait(func(msg tea.Msg) bool { c, ok := msg.(confirmMsg); return ok && c.c.ready && c.c.err == nil })
	p.Send(keyPress("y"))
	wait(func(msg tea.Msg) bool { w, ok := msg.(wroteMsg); return ok && w.err == nil })
	wait(func(msg tea.Msg) bool { _, ok := msg.(ledgerMsg); return ok })
	p.Send(keyPress("ctrl+c"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	m.Close()
	if got := h.r.Read("b.txt"); got != bUserOnly {
		t.Fatalf("b.txt = %q, want %q", got, bUserOnly)
	}
	if st := h.ledger(); st["c2"] != "undone" {
		t.Fatalf("c2 is %q", st["c2"])
	}
	h.checkInvariant1()
}
