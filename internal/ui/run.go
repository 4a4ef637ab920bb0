package ui

import (
	"context"
	"errors"
	"fmt"
	"io"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/gitguard/gitguard"
)

// Run shows the view on the terminal behind in and out until the user
// quits, then restores the terminal. A cancelled ctx stops it (the write in
// flight, if any, finishes first). It returns ctx.Err() when cancelled.
func Run(ctx context.Context, g *gitguard.Guard, in io.Reader, out io.Writer, o Options) error {
	m := New(ctx, g, o)
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
