package ui

import (
	"strconv"
	"strings"
	"unicode"
)

// clean makes untrusted text (file names, tool names, file content in a
// diff) safe to draw: control characters, escape sequences included, are
// shown as Go escapes instead of reaching the terminal, and tabs become
// spaces so widths stay right.
func clean[S ~string](text S) string {
	s := string(text)
	if !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case needsEscape(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return r == '\t' || r == unicode.ReplacementChar || unicode.IsControl(r) ||
		unicode.Is(unicode.Cf, r) // bidi overrides and other invisible formatting
}
