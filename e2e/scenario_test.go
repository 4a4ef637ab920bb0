package e2e

import (
	"os"
	"path/filepath"
	"strings"
)

// The work tree every agent starts from (committed), and what the scenario
// does to it. README.md is long enough that the agent's edit near the top
// and the user's line at the bottom are separate hunks.
var initialFiles = map[string]string{
	"README.md": "# Demo\n\nStatus: draft\n\nThis project shows a few files.\nLine six.\nLine seven.\n" +
		"Line eight.\nLine nine.\nLine ten.\nLine eleven.\nThe end.\n",
	"VERSION":      "v1\n",
	"CHANGELOG":    "- v1: first\n",
	"obsolete.txt": "to be removed\n",
	"LICENSE":      "MIT\n",
	"NOTICE":       "notice\n",
	"main.go":      "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
}

const (
	notesContent = "# Notes\n\nWritten by the agent.\n"
	userLine     = "A line the user added between turns.\n"
	utilContent  = "package util\n"
)

// vocab is how one agent spells the scenario's actions as tool calls.
type vocab struct {
	// write creates a file; edit replaces old with new in a file the agent
	// has read; shell runs a command; read reads a file (nil where edits
	// need no read first).
	write func(path, content string) step
	edit  func(path, old, new string) step
	shell func(command string) step
	read  func(path string) step
	// moveAndDelete renames LICENSE to docs/LICENSE.txt and deletes NOTICE in
	// one tool use (nil: the shell does it).
	moveAndDelete func() step
}

// Step names the checks refer to.
const (
	stepWrite     = "write a new file"
	stepEdit      = "edit README.md"
	stepSed       = "sed -i VERSION"
	stepSubfolder = "create files in a subfolder and rm another"
	stepMove      = "move a file and delete another"
	stepBadEdit   = "an edit that fails"
	stepBadShell  = "a shell command that edits and fails"
)

// scenario is the same session for every agent: file writes, an edit, a
// user edit between turns, shell edits (sed -i, a subfolder, rm), a file
// tool that fails and a shell command that fails after editing a file.
func scenario(v vocab) []step {
	var steps []step
	add := func(name string, s step, paths ...string) {
		s.name, s.paths = name, paths
		steps = append(steps, s)
	}
	if v.read != nil {
		add("read README.md", v.read("README.md"))
		add("read main.go", v.read("main.go"))
	}
	add(stepWrite, v.write("notes.md", notesContent), "notes.md")
	add(stepEdit, v.edit("README.md", "Status: draft", "Status: ready"), "README.md")
	s := v.shell("sed -i 's/v1/v2/' VERSION")
	s.userEdit = func(dir string) error { return appendFile(filepath.Join(dir, "README.md"), userLine) }
	add(stepSed, s, "VERSION", "README.md")
	add(stepSubfolder, v.shell("mkdir -p src/util && printf 'package util\\n' > src/util/util.go && "+
		"echo spaced > 'src/util/with space.txt' && rm obsolete.txt"),
		"src/util/util.go", "src/util/with space.txt", "obsolete.txt")
	mv := v.shell("mkdir -p docs && mv LICENSE docs/LICENSE.txt && rm NOTICE")
	if v.moveAndDelete != nil {
		mv = v.moveAndDelete()
	}
	add(stepMove, mv, "LICENSE", "docs/LICENSE.txt", "NOTICE")
	bad := v.edit("main.go", "no such text in main.go", "anything")
	bad.fails = true
	add(stepBadEdit, bad, "main.go")
	sh := v.shell("echo '- v2: broken build' >> CHANGELOG && exit 3")
	sh.fails = true
	add(stepBadShell, sh, "CHANGELOG")
	return steps
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readmeAfterEdit is README.md after the agent's edit.
func readmeAfterEdit() string {
	return strings.Replace(initialFiles["README.md"], "Status: draft", "Status: ready", 1)
}
