package record

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestQuotePath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"a.txt", "a.txt"},
		{"with space.txt", "with space.txt"},
		{"-leading-dash", "-leading-dash"},
		{"ünïcødé/文件.txt", "ünïcødé/文件.txt"},
		{"new\nline", `"new\nline"`},
		{"ta\tb", `"ta\tb"`},
		{`back\slash`, `"back\\slash"`},
		{`quo"te`, `"quo\"te"`},
		{"esc\x1b[31m", `"esc\033[31m"`},
		{"bad\xffutf8", `"bad\377utf8"`},
		{"rtl\u202eoverride", `"rtl\342\200\256override"`},
		{"del\x7f", `"del\177"`},
	} {
		if got := QuotePath(c.in); got != c.want {
			t.Errorf("QuotePath(%q) = %s, want %s", c.in, got, c.want)
		}
		if strings.ContainsAny(QuotePath(c.in), "\n\r\x1b") {
			t.Errorf("QuotePath(%q) holds a raw control character", c.in)
		}
	}
}

// TestQuotePathAsGit compares QuotePath with git's own quoting of the
// same names (git ls-files with core.quotePath=false) for every name
// made only of ASCII and printable UTF-8, where the two rules agree.
func TestQuotePathAsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir := t.TempDir()
	names := []string{"plain", "new\nline", "ta\tb", `back\slash`, `quo"te`, "esc\x1bx", "文件", "cr\rx", "-dash"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	got := git("-c", "core.quotePath=false", "ls-files")
	var want []string
	for _, n := range names {
		want = append(want, QuotePath(n))
	}
	for _, w := range want {
		if !strings.Contains("\n"+got, "\n"+w+"\n") {
			t.Errorf("git ls-files does not print %s:\n%s", w, got)
		}
	}
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain label", "plain label"},
		{"naïve café", "naïve café"},
		{`C:\dir`, `C:\dir`},
		{"hi\x1b[2J", `hi\x1b[2J`},
		{"two\nlines\r\n", `two\nlines\r\n`},
		{"a\tb", `a\tb`},
		{"bell\a del\x7f", `bell\x07 del\x7f`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"rtl \u202eevil", `rtl \u202eevil`},
		{"bad \xff byte", `bad \xff byte`},
		{"", ""},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsFunc(Printable(c.in), func(r rune) bool { return r < 0x20 || r == 0x7f || unsafeRune(r) }) {
			t.Errorf("Printable(%q) holds a control character", c.in)
		}
	}
}
