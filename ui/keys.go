package ui

import "charm.land/bubbles/v2/key"

// keyMap is every key the view answers to; help is drawn from it.
type keyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Focus, ScrollDown, ScrollUp             key.Binding
	Undo, UndoTo, Redo, Markers             key.Binding
	Filter, Runs, Help, Quit                key.Binding
	Yes, No, Enter, Back                    key.Binding
}

func newKeyMap() keyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return keyMap{
		Up:         b([]string{"up", "k"}, "↑/k", "newer call"),
		Down:       b([]string{"down", "j"}, "↓/j", "older call"),
		PageUp:     b([]string{"pgup"}, "pgup", "page up"),
		PageDown:   b([]string{"pgdown"}, "pgdn", "page down"),
		Top:        b([]string{"home", "g"}, "home/g", "newest call"),
		Bottom:     b([]string{"end", "G"}, "end/G", "oldest call"),
		Focus:      b([]string{"tab"}, "tab", "diff"),
		ScrollDown: b([]string{"ctrl+d", "space"}, "ctrl+d/space", "scroll the diff down"),
		ScrollUp:   b([]string{"ctrl+u", "b"}, "ctrl+u/b", "scroll the diff up"),
		Undo:       b([]string{"u"}, "u", "undo"),
		UndoTo:     b([]string{"U"}, "U", "to here"),
		Redo:       b([]string{"r"}, "r", "redo"),
		Markers:    b([]string{"m"}, "m", "markers"),
		Filter:     b([]string{"/"}, "/", "filter"),
		Runs:       b([]string{"R"}, "R", "runs"),
		Help:       b([]string{"?"}, "?", "help"),
		Quit:       b([]string{"q", "ctrl+c"}, "q", "quit"),
		Yes:        b([]string{"y", "Y"}, "y", "yes, write"),
		No:         b([]string{"n", "N", "esc", "q"}, "n/esc", "no"),
		Enter:      b([]string{"enter"}, "enter", "choose"),
		Back:       b([]string{"esc"}, "esc", "back"),
	}
}

// ShortHelp is the one-line key summary at the bottom of the screen.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Undo, k.UndoTo, k.Redo, k.Markers, k.Filter, k.Runs, k.Help, k.Quit}
}

// FullHelp is the help screen, in columns.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Focus, k.ScrollDown, k.ScrollUp, k.Filter, k.Runs},
		{k.Undo, k.UndoTo, k.Redo, k.Markers, k.Help, k.Quit},
	}
}
