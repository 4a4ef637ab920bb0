package record

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// QuotePath returns p as text output shows it: unchanged when it holds
// nothing that could confuse a reader or a terminal, else in double quotes
// with C escapes, as git quotes names (quote_c_style): \n, \t, \", \\ and
// the like, other control bytes and bytes that are not UTF-8 as three-digit
// octal. Printable non-ASCII text stays as it is (git's core.quotePath=false),
// but invisible format characters (bidirectional overrides, zero-width
// spaces) are escaped too, so that a name cannot pass for another one. A
// newline in a name thus never starts a new line of output. JSON output
// carries the name as it is instead.
func QuotePath(p string) string {
	if !needsQuote(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 2)
	b.WriteByte('"')
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			octal(&b, p[i])
		case r < utf8.RuneSelf:
			switch c := byte(r); c {
			case '\a':
				b.WriteString(`\a`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\v':
				b.WriteString(`\v`)
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			default:
				if c < 0x20 || c == 0x7f {
					octal(&b, c)
				} else {
					b.WriteByte(c)
				}
			}
		case unsafeRune(r):
			for j := 0; j < size; j++ {
				octal(&b, p[i+j])
			}
		default:
			b.WriteString(p[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// Quoted is QuotePath always in double quotes, for a name inside a
// sentence (an error message): "a.txt", "new\nline".
func Quoted(p string) string {
	if q := QuotePath(p); q != p {
		return q
	}
	return `"` + p + `"`
}

func needsQuote(p string) bool {
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return true
		case r < utf8.RuneSelf:
			if r < 0x20 || r == 0x7f || r == '"' || r == '\\' {
				return true
			}
		case unsafeRune(r):
			return true
		}
		i += size
	}
	return false
}

// unsafeRune reports non-ASCII runes a terminal does not show as
// themselves: C1 controls, format characters, separators other than space.
func unsafeRune(r rune) bool {
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)
}

func octal(b *strings.Builder, c byte) {
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}

// Printable returns recorded text (a label, a tool's name or input, a
// result, a reason) as a line of text output shows it: control characters
// (newlines and tabs included), invisible format characters and bytes that
// are not UTF-8 are written as escapes (\n, \t, \x1b, \u202e, \xff), so that
// text from an agent or a fetched run can neither drive the terminal nor
// break a line or a column. Other text is returned as it is. JSON output
// carries the text as recorded instead.
func Printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == utf8.RuneError || unsafeRune(r) }) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
