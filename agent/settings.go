package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gitguard/gitguard/internal/atomicfile"
)

// ErrNotRegular is returned for a settings path that is a symlink, a
// folder or anything but a regular file: gitguard writes through none.
var ErrNotRegular = errors.New("not a regular file")

// InitOptions configure what "gitguard init AGENT" installs.
type InitOptions struct {
	// Command is the hook command, e.g. "gitguard hook codex --fail-closed".
	Command string
	// Dir is the folder the settings belong to: the top of the work tree
	// for project settings, the home folder for user settings.
	Dir string
	// Local picks the agent's not-committed project file, where it has one.
	Local bool
	// MCP also registers "gitguard mcp" as an MCP server, with MCPCommand.
	MCP        bool
	MCPCommand string
}

// Change is a settings file before and after "gitguard init AGENT --write".
type Change struct {
	// Path is the file's absolute name; Rel its name below Dir, for messages.
	Path, Rel string
	Before    []byte
	After     []byte
	Mode      fs.FileMode
	// Added lists what was added (events, the MCP server); empty when the
	// file already had everything and After equals Before.
	Added []string
}

// Write writes the change (temp file and rename), creating the folder it
// goes in; a change that adds nothing writes nothing.
func (c *Change) Write() error {
	if len(c.Added) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(c.Path, c.After, c.Mode); err != nil {
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	return nil
}

// ReadSettings reads a settings file; a missing one is empty. It returns
// ErrNotRegular for anything but a regular file.
func ReadSettings(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s: %w; gitguard does not write through symlinks or replace folders", path, ErrNotRegular)
	}
	data, err := os.ReadFile(path)
	return data, fi.Mode().Perm(), err
}

// ErrNotSettings is returned (wrapped in a *SettingsError) for a settings
// file gitguard cannot merge into: not of the agent's format, or of an
// unexpected shape. gitguard leaves it alone; the user fixes it by hand.
var ErrNotSettings = errors.New("settings file cannot be merged")

// SettingsError says what is wrong with a settings file.
type SettingsError struct{ Msg string }

func (e *SettingsError) Error() string { return e.Msg }

// Unwrap makes errors.Is(err, ErrNotSettings) hold.
func (e *SettingsError) Unwrap() error { return ErrNotSettings }

// NotSettingsf returns a *SettingsError.
func NotSettingsf(format string, args ...any) error {
	return &SettingsError{fmt.Sprintf(format, args...)}
}

// MergeFile reads dir/rel, merges with merge (which returns the new
// content and what it added) and returns the change. A merge error is a
// *SettingsError naming the file.
func MergeFile(dir, rel string, merge func(old []byte) ([]byte, []string, error)) (Change, error) {
	path := filepath.Join(dir, rel)
	old, mode, err := ReadSettings(path)
	if err != nil {
		return Change{}, err
	}
	after, added, err := merge(old)
	if err != nil {
		return Change{}, &SettingsError{Msg: filepath.ToSlash(rel) + ": " + err.Error()}
	}
	if len(added) == 0 {
		after = bytes.Clone(old)
	}
	return Change{Path: path, Rel: filepath.ToSlash(rel), Before: old, After: after, Mode: mode, Added: added}, nil
}
