package ui

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/gitguard/gitguard"
)

// ErrNoTerminal is returned by Run when in or out is not a terminal.
var ErrNoTerminal = errors.New("not a terminal")

// Run shows the view on the terminal behind in and out until the user
// quits, then restores the terminal. A cancelled ctx stops it (the write in
// flight, if any, finishes first). It returns ctx.Err() when cancelled,
// gitguard.ErrUnknownRun or gitguard.ErrNoRun when there is no such run
// or none at all, and ErrNoTerminal when in or out is not a terminal.
func Run(ctx context.Context, g *gitguard.Guard, in *os.File, out *os.File, o Options) error {
	m := New(ctx, g, o)
	// A run that is not there is a usage error before the screen changes.
	if _, _, err := m.b.pickRun(ctx, o.Run); err != nil {
		return err
	}
	if !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return ErrNoTerminal
	}
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out)}
	if !o.Color {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err := tea.NewProgram(m, opts...).Run()
	m.Close()
	if ctx.Err() != nil && errors.Is(err, tea.ErrProgramKilled) {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("terminal view: %w", err)
	}
	return nil
}
