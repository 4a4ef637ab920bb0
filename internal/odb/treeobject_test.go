package odb_test

import (
	"errors"
	"testing"

	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// TestDecodeTreeRefuses: tree entries git's fsck and checkout refuse are
// refused where every tree is decoded, wrapping both ErrBadTree and
// record.ErrCorrupt; names git allows (newline, tab, backslash, a leading
// dash, bytes that are not UTF-8) pass.
func TestDecodeTreeRefuses(t *testing.T) {
	t.Parallel()
	var h record.Hash
	h[0] = 1
	file := func(name string) odb.TreeEntry { return odb.TreeEntry{Name: name, Mode: record.ModeFile, Hash: h} }
	dir := func(name string) odb.TreeEntry { return odb.TreeEntry{Name: name, Mode: record.ModeTree, Hash: h} }
	raw := func(es ...odb.TreeEntry) []byte { return odb.EncodeTree(es) }
	for _, c := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"plain", raw(file("a"), dir("b")), true},
		{"names git allows", raw(file("-dash"), file("a\\b"), file("new\nline"), file("tab\tx"), file("x\xff")), true},
		{"file and folder of a name, apart", raw(file("a"), file("a-b"), file("a.txt"), dir("a")), false},
		{"the same name twice", raw(file("a"), file("a")), false},
		{"a duplicate out of order", raw(file("b"), file("a"), file("b")), false},
		{"out of order, no duplicate", raw(file("b"), file("a")), true},
		{".git", raw(dir(".git")), false},
		{".GIT", raw(dir(".GIT")), false},
		{".git.", raw(dir(".git.")), false},
		{".git followed by a space", raw(dir(".git ")), false},
		{"git~1", raw(dir("GIT~1")), false},
		{"HFS+ ignorable", raw(dir(".g\u200cit")), false},
		{"dot", raw(file(".")), false},
		{"dot dot", raw(dir("..")), false},
		{"empty name", raw(file("")), false},
		{"slash in name", raw(file("a/b")), false},
		{"bad mode", []byte("100664 a\x00" + string(h[:])), false},
		{"truncated", []byte("100644 a\x00\x01"), false},
	} {
		_, err := odb.DecodeTree(c.data)
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case !c.ok && err == nil:
			t.Errorf("%s: accepted", c.name)
		case !c.ok && (!errors.Is(err, odb.ErrBadTree) || !errors.Is(err, record.ErrCorrupt)):
			t.Errorf("%s: %v does not wrap ErrBadTree and ErrCorrupt", c.name, err)
		}
	}
}
