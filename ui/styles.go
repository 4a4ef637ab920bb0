package ui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles colour the view. Without colour every style is plain: states are
// words and the selected row has a "> " marker either way, so nothing is
// told by colour alone.
type styles struct {
	title, header, selected, dim, err, ok lipgloss.Style
	add, del, hunk, meta                  lipgloss.Style
	state                                 map[string]lipgloss.Style
	help                                  help.Styles
}

func newStyles(color bool) styles {
	plain := lipgloss.NewStyle()
	if !color {
		return styles{title: plain, header: plain, selected: plain, dim: plain, err: plain, ok: plain,
			add: plain, del: plain, hunk: plain, meta: plain, state: map[string]lipgloss.Style{}}
	}
	fg := func(c string) lipgloss.Style { return lipgloss.NewStyle().Foreground(lipgloss.Color(c)) }
	return styles{
		title:    lipgloss.NewStyle().Bold(true),
		header:   lipgloss.NewStyle().Bold(true),
		selected: lipgloss.NewStyle().Reverse(true),
		dim:      fg("8"),
		err:      fg("1").Bold(true),
		ok:       fg("2"),
		add:      fg("2"),
		del:      fg("1"),
		hunk:     fg("6"),
		meta:     lipgloss.NewStyle().Bold(true),
		state: map[string]lipgloss.Style{
			"applied": fg("2"), "reapplyable": fg("8"), "conflicted": fg("3"), "merged": fg("3"),
			"unrecoverable": fg("1"), "undone": fg("8"), "failed": fg("1"), "uncertain": fg("3"),
			"started": fg("3"), "edited since": fg("3"), "changed later": fg("8"),
		},
		help: help.DefaultDarkStyles(),
	}
}

// word renders a state word in its colour (plain without colour).
func (s styles) word(w string) string {
	if st, ok := s.state[w]; ok {
		return st.Render(w)
	}
	return w
}
