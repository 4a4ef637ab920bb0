package ospath

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// Flavor is a platform's file name syntax.
type Flavor int

const (
	// Unix names: '/' separates, names compare byte for byte.
	Unix Flavor = iota
	// Windows names: '\' or '/' separate, a volume (C:, \\server\share)
	// leads an absolute name, and names compare regardless of case (NTFS).
	Windows
)

// FlavorOf returns the flavor of the operating system goos (runtime.GOOS).
func FlavorOf(goos string) Flavor {
	if goos == "windows" {
		return Windows
	}
	return Unix
}

// Host is the flavor of this machine.
func Host() Flavor { return FlavorOf(runtime.GOOS) }

// Rel returns the slash-separated path of the absolute name p below the
// absolute folder top, and whether p is top or below it. ".." and "."
// are resolved lexically first, as filepath.Clean does. On Windows a name
// on another volume is not below top, and the \\?\ long-path prefix is
// ignored.
func (f Flavor) Rel(top, p string) (string, bool) {
	tv, tc := f.split(top)
	pv, pc := f.split(p)
	if !f.same(tv, pv) || len(pc) < len(tc) {
		return "", false
	}
	for i := range tc {
		if !f.same(tc[i], pc[i]) {
			return "", false
		}
	}
	return strings.Join(pc[len(tc):], "/"), true
}

func (f Flavor) same(a, b string) bool {
	if f == Windows {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// split returns the volume of an absolute name ("" on Unix) and its
// cleaned components.
func (f Flavor) split(name string) (volume string, comps []string) {
	rest := name
	if f == Windows {
		rest = strings.ReplaceAll(rest, "/", `\`)
		if r, ok := strings.CutPrefix(rest, `\\?\`); ok {
			rest = r
			if unc, ok := cutPrefixFold(rest, `UNC\`); ok {
				rest = `\\` + unc
			}
		}
		volume, rest = windowsVolume(rest)
	}
	sep := "/"
	if f == Windows {
		sep = `\`
	}
	for _, c := range strings.Split(rest, sep) {
		switch c {
		case "", ".":
		case "..":
			if len(comps) > 0 {
				comps = comps[:len(comps)-1]
			}
		default:
			comps = append(comps, c)
		}
	}
	return volume, comps
}

// windowsVolume splits a drive letter ("C:") or a UNC share
// (\\server\share) off a name with backslashes.
func windowsVolume(name string) (volume, rest string) {
	if len(name) >= 2 && name[1] == ':' && isLetter(name[0]) {
		return name[:2], name[2:]
	}
	if r, ok := strings.CutPrefix(name, `\\`); ok {
		server, after, _ := strings.Cut(r, `\`)
		share, after, _ := strings.Cut(after, `\`)
		return `\\` + server + `\` + share, after
	}
	return "", name
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// ErrUnwritable is returned by CheckName for a repository path the
// platform's file systems cannot hold as it is named.
var ErrUnwritable = errors.New("name cannot be written on this platform")

// CheckName returns ErrUnwritable (wrapped, with the reason) when the
// repository path p cannot be written under its own name on the flavor's
// file systems. On Windows, as git for Windows refuses them with
// core.protectNTFS: a drive letter or any ':' (which would name an
// alternate data stream), a backslash, the characters <>"|?* and control
// characters, a device name (CON, NUL, COM1, …, with or without an
// extension), and a name ending in a dot or a space. Every name passes on Unix.
func (f Flavor) CheckName(p string) error {
	if f != Windows {
		return nil
	}
	bad := func(why string) error { return fmt.Errorf("%q: %w: %s", p, ErrUnwritable, why) }
	for _, c := range strings.Split(p, "/") {
		for i := 0; i < len(c); i++ {
			switch ch := c[i]; {
			case ch < 0x20:
				return bad("control character")
			case ch == ':':
				return bad("':' names a drive or an alternate data stream")
			case ch == '\\':
				return bad("backslash")
			case strings.IndexByte(`<>"|?*`, ch) >= 0:
				return bad(fmt.Sprintf("%q is not allowed in Windows names", ch))
			}
		}
		if c == "" {
			continue
		}
		if last := c[len(c)-1]; last == '.' || last == ' ' {
			if c != "." && c != ".." {
				return bad("a name ending in a dot or a space")
			}
		}
		if isDeviceName(c) {
			return bad("a device name")
		}
	}
	return nil
}

// isDeviceName reports whether a name is one of the DOS device names,
// which Windows treats as the device whatever the extension or trailing
// spaces (CON, CON.txt, "nul ").
func isDeviceName(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		return base[3] >= '1' && base[3] <= '9'
	}
	return false
}
