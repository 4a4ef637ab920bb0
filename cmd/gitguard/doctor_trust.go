package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// The agents that load a project's hooks only in a trusted project or
// folder keep that trust in the user's settings. A project set up with
// hooks the agent never loads records nothing, without a word: these
// checks read where each agent keeps its trust.

// codexTrust: Codex loads a project's .codex/config.toml, hooks included,
// only in a project its own config.toml ([projects."PATH"] trust_level =
// "trusted") trusts; it also asks once before it runs a new hook.
func codexTrust(d *doctor, top string) doctorCheck {
	c := doctorCheck{Name: "trust"}
	path := homeFile(d, "CODEX_HOME", ".codex", "config.toml")
	fix := fmt.Sprintf("add the project to Codex's trusted projects: answer Codex's trust prompt in %s, or add to %s:\n"+
		"    [projects.%q]\n    trust_level = \"trusted\"", top, displayHome(d, path), top)
	if path == "" {
		return c.problem("HOME is not set: cannot read Codex's trusted projects", fix)
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return c.problem(fmt.Sprintf("project hooks load only in a trusted project, and %s does not exist", displayHome(d, path)), fix)
	}
	if err != nil {
		return c.problem(fmt.Sprintf("cannot read %s: %v", displayHome(d, path), err), fix)
	}
	var doc struct {
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return c.problem(fmt.Sprintf("cannot read %s: %v", displayHome(d, path), err), fix)
	}
	// The nearest folder listed decides.
	best, level := "", ""
	for p, v := range doc.Projects {
		if within(top, p) && len(p) > len(best) {
			best, level = p, v.TrustLevel
		}
	}
	switch {
	case best == "":
		return c.problem(fmt.Sprintf("the project is not among Codex's trusted projects in %s: Codex loads no project hooks here",
			displayHome(d, path)), fix)
	case level != "trusted":
		return c.problem(fmt.Sprintf("Codex's %s gives %s trust_level %q: Codex loads no project hooks here",
			displayHome(d, path), best, level), fix)
	}
	return c.ok(fmt.Sprintf("trusted project (%s); Codex asks once before it runs a new hook: approve it in /hooks", displayHome(d, path)))
}

// geminiTrust: Gemini CLI loads a project's settings, hooks included,
// only in a trusted folder (~/.gemini/trustedFolders.json), and refuses
// -p in an untrusted one, unless folder trust is off in the user's
// settings or GEMINI_CLI_TRUST_WORKSPACE=true trusts the current folder.
func geminiTrust(d *doctor, top string) doctorCheck {
	c := doctorCheck{Name: "trust"}
	if d.e.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return c.ok("GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder (in this environment only)")
	}
	settings, _, _ := readJSONFile(homeFile(d, "", ".gemini", "settings.json"))
	if enabled, ok := dig(settings, "security", "folderTrust", "enabled").(bool); ok && !enabled {
		return c.ok("folder trust is off in ~/.gemini/settings.json")
	}
	return trustedFolders(d, c, "Gemini CLI", homeFile(d, "", ".gemini", "trustedFolders.json"), top)
}

// qwenTrust: Qwen Code checks folder trust only when
// security.folderTrust.enabled is true in the user's settings.
func qwenTrust(d *doctor, top string) doctorCheck {
	c := doctorCheck{Name: "trust"}
	settings, _, _ := readJSONFile(homeFile(d, "", ".qwen", "settings.json"))
	if enabled, _ := dig(settings, "security", "folderTrust", "enabled").(bool); !enabled {
		return c.ok("folder trust is off (Qwen Code's default): project hooks load")
	}
	return trustedFolders(d, c, "Qwen Code", homeFile(d, "", ".qwen", "trustedFolders.json"), top)
}

// copilotTrust: Copilot CLI keeps its trusted folders to itself; say what
// it needs rather than guess.
func copilotTrust(_ *doctor, _ string) doctorCheck {
	return doctorCheck{Name: "trust", Status: statusInfo,
		Message: "not checked: Copilot CLI loads a repository's hooks only in a folder you trusted when it asked (or with --trust-folder)"}
}

// trustedFolders reads a trustedFolders.json ({"PATH": "TRUST_FOLDER" |
// "TRUST_PARENT" | "DO_NOT_TRUST"}): the nearest folder listed decides,
// TRUST_PARENT standing for the folder above the one named.
func trustedFolders(d *doctor, c doctorCheck, title, path, top string) doctorCheck {
	fix := fmt.Sprintf("trust the folder when %s asks, or add %q: \"TRUST_FOLDER\" to %s", title, top, displayHome(d, path))
	v, ok, err := readJSONFile(path)
	switch {
	case path == "":
		return c.problem("HOME is not set: cannot read "+title+"'s trusted folders", fix)
	case err != nil:
		return c.problem(fmt.Sprintf("cannot read %s: %v", displayHome(d, path), err), fix)
	case !ok:
		return c.problem(fmt.Sprintf("%s loads project hooks only in a trusted folder, and %s does not exist", title, displayHome(d, path)), fix)
	}
	best, level := "", ""
	for p, l := range v {
		s, _ := l.(string)
		dir := p
		if s == "TRUST_PARENT" {
			dir = filepath.Dir(p)
		}
		// On a tie (a folder named and its child's TRUST_PARENT), distrust wins.
		if within(top, dir) && (len(dir) > len(best) || len(dir) == len(best) && s == "DO_NOT_TRUST") {
			best, level = dir, s
		}
	}
	if best == "" || level == "DO_NOT_TRUST" {
		return c.problem(fmt.Sprintf("the folder is not trusted in %s: %s loads no project hooks here", displayHome(d, path), title), fix)
	}
	return c.ok(fmt.Sprintf("trusted folder (%s)", displayHome(d, path)))
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	path, dir = filepath.Clean(path), filepath.Clean(dir)
	if path == dir {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// displayHome shows a file below the home folder as ~/...
func displayHome(d *doctor, path string) string {
	if d.home != "" {
		if rel, err := filepath.Rel(d.home, path); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return path
}
