package workspace

import (
	"bytes"
	"context"
	"strings"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/patchstore/record"
)

// Content conversion. git may store a file differently from its bytes on
// disk: core.autocrlf and the text/eol attributes change line endings,
// clean/smudge filters (Git LFS) replace the content, ident expands $Id$.
// The index's blob ids are the converted ("clean") form, so gitguard records
// every file in that form too — a snapshot is what `git add -A` would stage,
// an LFS file is recorded as its pointer — and hands such paths to git
// itself to hash (`git hash-object`, one process for all of a snapshot's
// paths) and to write back (`git cat-file --filters`). Which paths convert
// is decided in process from the attribute files (attrrules.go); paths
// nothing converts, the common case, never leave the process, whatever
// else .gitattributes says about them (diff drivers, linguist-*, binary).

// DefaultAttributesFile returns the global attributes file git reads when
// core.attributesFile is unset: $XDG_CONFIG_HOME/git/attributes, else
// ~/.config/git/attributes. A configured value starting with "~/" is expanded.
func DefaultAttributesFile(configured string) string {
	return globalGitFile(configured, "attributes")
}

func (w *Workspace) initConversion() {
	switch strings.ToLower(w.configString("core.autocrlf")) {
	case "true", "input", "yes", "on", "1":
		w.autocrlf = true
	}
	w.safecrlf = w.config.Bool("core.safecrlf", false) // "warn", git's default, only warns
	w.ignoreCase = hostNameRules(w.config).ignoreCase
	w.attrSources = w.attrSourcesOf()
}

func (w *Workspace) configString(key string) string {
	v, _ := w.config.Get(key)
	return v
}

// Converts reports whether git converts the content of path (a regular
// file) between the work tree and the object database.
func (w *Workspace) Converts(ctx context.Context, path string) (bool, error) {
	conv, unsure := w.newAttrRules(nil).converts(path, w.autocrlf)
	if !unsure {
		return conv, nil
	}
	vals, err := git.CheckAttr(ctx, w.repo.WorkTree, path, conversionAttrs...)
	if err != nil {
		return false, err
	}
	attrs := map[string]attrState{}
	for _, a := range conversionAttrs {
		switch v := vals[a]; v {
		case "", "unspecified":
		case "set":
			attrs[a] = attrState{name: a, kind: attrSet}
		case "unset":
			attrs[a] = attrState{name: a, kind: attrUnset}
		default:
			attrs[a] = attrState{name: a, kind: attrValue, value: v}
		}
	}
	return conversionOf(attrs, w.autocrlf), nil
}

// needsGit reports whether git must hash the regular file path: it
// converts, or only git can tell.
func (w *Workspace) needsGit(rules *attrRules, path string) bool {
	conv, unsure := rules.converts(path, w.autocrlf)
	return conv || unsure
}

// hashConverted returns the blob id git stages for the regular file path
// (at full, size bytes), which git converts by rules: worked out in process when
// only its line endings change (inProcess), else by git.
func (w *Workspace) hashConverted(rules *attrRules, path, full string, size int64) (record.Hash, error) {
	if convert := w.inProcess(rules, path); convert != nil {
		if h, ok, err := odb.HashFileConverted(full, size, convert); ok || err != nil {
			return h, err
		}
	}
	return git.HashPath(context.Background(), w.repo.WorkTree, path, false)
}

// inProcess returns how a regular file git converts only in its line
// endings can be stored without git: as it is when it holds no carriage
// return (git's crlf_to_git changes nothing without a CRLF), or, for text
// set or an eol given (git's CRLF_TEXT*, which neither guesses nor looks at
// the index), with every CR before an LF dropped, as crlf_to_git does. nil
// when git must hash it: other conversions, text=auto and core.autocrlf on
// content with a CR, and everything under core.safecrlf=true, where git
// refuses files whose line endings a checkout would change.
func (w *Workspace) inProcess(rules *attrRules, path string) func(data []byte) ([]byte, bool) {
	if w.safecrlf {
		return nil
	}
	switch c, unsure := rules.conversion(path, w.autocrlf); {
	case unsure:
		return nil
	case c == convEOL:
		return func(data []byte) ([]byte, bool) { return data, bytes.IndexByte(data, '\r') < 0 }
	case c == convText:
		return func(data []byte) ([]byte, bool) { return crlfToLF(data), true }
	}
	return nil
}

// crlfToLF drops every CR that comes right before an LF.
func crlfToLF(data []byte) []byte {
	if !bytes.Contains(data, []byte("\r\n")) {
		return data
	}
	out := make([]byte, 0, len(data))
	for i, c := range data {
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			continue
		}
		out = append(out, c)
	}
	return out
}
