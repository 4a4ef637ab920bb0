package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// A hook command that does not run records nothing, and agents treat a
// hook that cannot start (exit 127) as a non-blocking failure: every tool
// use then runs unguarded without a word. So init writes only a command
// whose program it found with the PATH it was started with (the one an
// agent started from the same shell gets), and otherwise the program's
// absolute path.

// errHookUnresolved is returned when a hook or MCP command's program
// cannot be found: writing it would leave the agent unguarded.
var errHookUnresolved = errors.New("the agent could not run it")

// unresolvedError says which command, which program and which PATH.
type unresolvedError struct {
	command, program, path string
	why                    string
}

func (e *unresolvedError) Error() string {
	return fmt.Sprintf("command %q: %s (PATH=%s): %v", e.command, e.why, e.path, errHookUnresolved)
}

func (e *unresolvedError) Unwrap() error { return errHookUnresolved }

// hookCommandFor is the command init writes for s by default: the small
// hook client when it was installed beside this program (on Linux, where
// the watch daemon it talks to runs), else this program's hook command;
// each by name when PATH finds that very file, else by absolute path.
func hookCommandFor(s *agentSpec, getenv func(string) string) string {
	self, err := os.Executable()
	if err != nil {
		return s.defaultCommand
	}
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	path := getenv("PATH")
	if runtime.GOOS == "linux" {
		client := filepath.Join(filepath.Dir(self), "gitguard-hook")
		if fi, err := os.Stat(client); err == nil && fi.Mode().IsRegular() {
			return byName("gitguard-hook", client, path) + " " + s.name
		}
	}
	prog, args, _ := strings.Cut(s.defaultCommand, " ")
	return byName(prog, self, path) + " " + args
}

// byName is name when PATH finds the file file under it, else file's
// absolute path, quoted for a shell where it needs to be.
func byName(name, file, path string) string {
	if found, err := findProgram(name, path); err == nil && sameFile(found, file) {
		return name
	}
	return shellQuote(file)
}

// checkCommand makes sure the program of a hook or MCP command can be
// found as the agent will look for it: an absolute or relative path must
// name an executable file, a bare name must be found in PATH.
func checkCommand(command string, getenv func(string) string) error {
	path := getenv("PATH")
	prog, ok := commandProgram(command)
	if !ok {
		return &unresolvedError{command: command, path: path,
			why: "its program cannot be told without a shell (a variable, a substitution or an assignment comes first)"}
	}
	if _, err := findProgram(prog, path); err != nil {
		return &unresolvedError{command: command, program: prog, path: path, why: err.Error()}
	}
	return nil
}

// commandProgram returns the first word of a shell command, with simple
// quotes removed; ok is false when the word needs a shell to expand.
func commandProgram(command string) (prog string, ok bool) {
	command = strings.TrimSpace(command)
	var b strings.Builder
	for i := 0; i < len(command); i++ {
		switch c := command[i]; c {
		case ' ', '\t', '\n':
			return b.String(), b.Len() > 0
		case '\'':
			j := strings.IndexByte(command[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(command[i+1 : i+1+j])
			i += j + 1
		case '"':
			j := strings.IndexByte(command[i+1:], '"')
			if j < 0 || strings.ContainsAny(command[i+1:i+1+j], "$`\\") {
				return "", false
			}
			b.WriteString(command[i+1 : i+1+j])
			i += j + 1
		case '$', '`', '=', '\\', '(', ';', '|', '&', '<', '>', '*', '?', '[', '~':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), b.Len() > 0
}

// findProgram finds prog as a shell does: a name with a slash is that
// file, a bare name the first executable file of that name in PATH.
func findProgram(prog, path string) (string, error) {
	if strings.ContainsRune(prog, '/') || (runtime.GOOS == "windows" && strings.ContainsRune(prog, '\\')) {
		if err := executable(prog); err != nil {
			return "", fmt.Errorf("%s: %w", prog, err)
		}
		return prog, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		for _, cand := range candidates(filepath.Join(dir, prog)) {
			if executable(cand) == nil {
				return cand, nil
			}
		}
	}
	return "", fmt.Errorf("%s is not found in any folder of PATH", prog)
}

// candidates are the files a command name may be: on Windows with each
// extension PATHEXT lists.
func candidates(file string) []string {
	if runtime.GOOS != "windows" || filepath.Ext(file) != "" {
		return []string{file}
	}
	exts := os.Getenv("PATHEXT")
	if exts == "" {
		exts = ".com;.exe;.bat;.cmd"
	}
	var out []string
	for _, ext := range filepath.SplitList(exts) {
		out = append(out, file+strings.ToLower(ext))
	}
	return out
}

// executable reports why file cannot be run, or nil.
func executable(file string) error {
	fi, err := os.Stat(file)
	switch {
	case err != nil:
		return errors.New("no such file")
	case fi.IsDir():
		return errors.New("is a folder")
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return errors.New("is not executable")
	}
	return nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// shellQuote quotes a path for a POSIX shell when it holds anything but
// letters, digits and / . _ - + : , @ (on Windows, in double quotes when
// it holds a space).
func shellQuote(s string) string {
	if runtime.GOOS == "windows" {
		if strings.ContainsAny(s, " \t") {
			return `"` + s + `"`
		}
		return s
	}
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && !strings.ContainsRune("/._-+:,@", r)
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
