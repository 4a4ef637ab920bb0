package odb

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A repository made by `git clone --shared` or `--reference` borrows
// objects from other object folders, which objects/info/alternates lists.
// Reads look there after the repository's own packs and loose objects;
// writes never go there.

// maxAlternateDepth is how deep alternates of alternates are followed,
// as git follows them.
const maxAlternateDepth = 5

// alternates returns the object folders objDir borrows from, directly or
// through theirs, in git's order: each file's lines in turn, an
// alternate's own alternates after it, then those env names (the value of
// GIT_ALTERNATE_OBJECT_DIRECTORIES). As in git, a line starting with # is
// a comment, one starting with a double quote is C-quoted, a relative path
// is relative to the object folder whose file lists it, and folders that
// do not exist, repeat or are objDir itself are left out.
func alternates(objDir, env string) []string {
	own := filepath.Clean(objDir)
	var dirs []string
	var follow func(dir string, names []string, depth int)
	follow = func(dir string, names []string, depth int) {
		if depth > maxAlternateDepth {
			return
		}
		for _, alt := range names {
			if !filepath.IsAbs(alt) {
				alt = filepath.Join(dir, alt)
			}
			alt = filepath.Clean(alt)
			if alt == own || slices.Contains(dirs, alt) {
				continue
			}
			if fi, err := os.Stat(alt); err != nil || !fi.IsDir() {
				continue
			}
			dirs = append(dirs, alt)
			follow(alt, readAlternates(alt), depth+1)
		}
	}
	follow(own, readAlternates(own), 0)
	// The variable's folders are relative to the current folder, as git
	// takes them.
	if cwd, err := os.Getwd(); err == nil {
		follow(cwd, splitAlternatesEnv(env), 0)
	}
	return dirs
}

// splitAlternatesEnv splits GIT_ALTERNATE_OBJECT_DIRECTORIES as git does:
// by the path list separator, an entry starting with a double quote being
// C-quoted (and then able to hold the separator).
func splitAlternatesEnv(env string) []string {
	var names []string
	for env != "" {
		var name string
		if env[0] == '"' {
			end := 1
			for end < len(env) && env[end] != '"' {
				if env[end] == '\\' {
					end++
				}
				end++
			}
			unq, err := strconv.Unquote(env[:min(end+1, len(env))])
			if err != nil {
				return names // git stops at a bad quote too
			}
			name, env = unq, env[min(end+1, len(env)):]
			env = strings.TrimPrefix(env, string(os.PathListSeparator))
		} else {
			name, env, _ = strings.Cut(env, string(os.PathListSeparator))
		}
		if name != "" {
			names = append(names, name)
		}
	}
	return names
}

// readAlternates returns the folder names objDir's info/alternates lists.
func readAlternates(objDir string) []string {
	f, err := os.Open(filepath.Join(objDir, "info", "alternates"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		switch {
		case line == "", line[0] == '#':
			continue
		case line[0] == '"':
			// git's C quoting is close enough to Go's for a path: the
			// same escapes, octal bytes included.
			unq, err := strconv.Unquote(line)
			if err != nil {
				continue
			}
			line = unq
		}
		names = append(names, line)
	}
	return names
}
