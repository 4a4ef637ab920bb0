package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// installTimeout bounds one npm install of every pinned CLI (about 900 MB,
// most of it two native binaries).
const installTimeout = 10 * time.Minute

// cacheDir is where installed CLIs are kept between runs: GITGUARD_E2E_CACHE,
// or gitguard-e2e in the user cache folder (beside the Go build cache).
func cacheDir() (string, error) {
	if d := os.Getenv("GITGUARD_E2E_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the agent CLIs (set GITGUARD_E2E_CACHE): %w", err)
	}
	return filepath.Join(d, "gitguard-e2e"), nil
}

// pinKey names one set of pins, so a changed pin installs afresh.
func pinKey() string {
	var lines []string
	for _, p := range pins {
		lines = append(lines, p.pkg+"@"+p.version)
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return "npm-" + hex.EncodeToString(sum[:8])
}

// installCLIs installs every pinned CLI with npm into the cache (once per
// set of pins) and returns the folder holding their executables. A finished
// install is renamed into place, so an interrupted one is never reused.
func installCLIs(ctx context.Context, logf func(string, ...any)) (string, error) {
	root, err := cacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, pinKey())
	bin := filepath.Join(dir, "node_modules", ".bin")
	if installed(bin) {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is needed to install the agent CLIs: %w", err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"private": true}`+"\n"), 0o644); err != nil {
		return "", err
	}
	args := []string{"install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error"}
	for _, name := range sortedAgents() {
		p := pins[name]
		args = append(args, p.pkg+"@"+p.version)
	}
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("npm %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	logf("installed %s in %s", strings.Join(args[5:], " "), time.Since(start).Round(time.Second))
	if !binsInstalled(filepath.Join(tmp, "node_modules", ".bin")) {
		return "", fmt.Errorf("npm install finished but an agent CLI is missing in %s", tmp)
	}
	if err := installOpencodePluginDeps(ctx, npm, filepath.Join(tmp, opencodePluginDeps), filepath.Join(tmp, opencodeNpmCache)); err != nil {
		return "", err
	}
	if !installed(bin) {
		// An install of these pins left incomplete (by an older suite).
		os.RemoveAll(dir)
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(bin) {
		return "", err
	}
	pruneOtherPins(root, filepath.Base(dir), logf)
	return bin, nil
}

// pruneOtherPins removes the installs of earlier pins (about 1 GB each).
func pruneOtherPins(root, keep string, logf func(string, ...any)) {
	old, _ := filepath.Glob(filepath.Join(root, "npm-*"))
	for _, d := range old {
		if filepath.Base(d) != keep {
			if err := os.RemoveAll(d); err != nil {
				logf("could not remove the old install %s: %v", d, err)
			}
		}
	}
}

// opencodePluginDeps is the folder, beside the installed CLIs, holding what
// opencode installs into a project's .opencode folder before it loads a
// plugin there (see installOpencodePluginDeps).
const opencodePluginDeps = "opencode-plugin-deps"

// opencodeNpmCache is the npm cache opencode is given, filled by that
// install: opencode's own npm (in process) then finds the package's metadata
// there instead of asking the registry.
const opencodeNpmCache = "opencode-npm-cache"

// installOpencodePluginDeps installs @opencode-ai/plugin at opencode's own
// version, exactly as opencode does into .opencode/ (package.json, lock file,
// node_modules) the first time it meets a project with a plugin: a test copies
// it there, so opencode's install finds nothing to do instead of spending a
// minute on npm in every session.
func installOpencodePluginDeps(ctx context.Context, npm, dir, cache string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pkg := fmt.Sprintf("{\n  \"dependencies\": {\n    \"@opencode-ai/plugin\": %q\n  }\n}\n", pins["opencode"].version)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "npm_config_cache="+cache)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install of opencode's plugin package: %w\n%s", err, out)
	}
	return nil
}

// installed reports whether every pinned CLI's executable is in bin, and
// opencode's plugin package beside them.
func installed(bin string) bool {
	_, err := os.Stat(filepath.Join(bin, "..", "..", opencodePluginDeps, "node_modules", "@opencode-ai", "plugin"))
	_, errCache := os.Stat(filepath.Join(bin, "..", "..", opencodeNpmCache))
	return err == nil && errCache == nil && binsInstalled(bin)
}

// binsInstalled reports whether every pinned CLI's executable is in bin.
func binsInstalled(bin string) bool {
	for _, p := range pins {
		if _, err := os.Stat(filepath.Join(bin, p.bin)); err != nil {
			return false
		}
	}
	return true
}

func sortedAgents() []string {
	var names []string
	for n := range pins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
