package odb

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/git"
)

// ErrBadCommit is returned when a commit object does not parse.
var ErrBadCommit = errors.New("malformed commit object")

// Signature is an author or committer line.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// Commit is the part of a commit object gitguard uses.
type Commit struct {
	Tree      git.Hash
	Parents   []git.Hash
	Author    Signature
	Committer Signature
	Message   string
}

// EncodeCommit serialises c as the content of a commit object.
func EncodeCommit(c *Commit) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\n", sig(c.Author))
	fmt.Fprintf(&b, "committer %s\n", sig(c.Committer))
	b.WriteString("\n")
	b.WriteString(c.Message)
	return b.Bytes()
}

func sig(s Signature) string {
	return fmt.Sprintf("%s <%s> %d %s", s.Name, s.Email, s.When.Unix(), s.When.Format("-0700"))
}

// DecodeCommit parses the content of a commit object.
func DecodeCommit(data []byte) (*Commit, error) {
	head, msg, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		head, msg = data, nil
	}
	c := &Commit{Message: string(msg)}
	seenTree := false
	for _, line := range strings.Split(string(head), "\n") {
		key, val, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			h, err := git.ParseHash(val)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBadCommit, err)
			}
			c.Tree, seenTree = h, true
		case "parent":
			h, err := git.ParseHash(val)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrBadCommit, err)
			}
			c.Parents = append(c.Parents, h)
		case "author":
			c.Author = parseSig(val)
		case "committer":
			c.Committer = parseSig(val)
		}
	}
	if !seenTree {
		return nil, fmt.Errorf("%w: no tree", ErrBadCommit)
	}
	return c, nil
}

func parseSig(s string) Signature {
	var out Signature
	lt, gt := strings.IndexByte(s, '<'), strings.LastIndexByte(s, '>')
	if lt < 0 || gt < lt {
		return out
	}
	out.Name = strings.TrimSpace(s[:lt])
	out.Email = s[lt+1 : gt]
	f := strings.Fields(s[gt+1:])
	if len(f) == 2 {
		sec, _ := strconv.ParseInt(f[0], 10, 64)
		loc := time.UTC
		if t, err := time.Parse("-0700", f[1]); err == nil {
			loc = t.Location()
		}
		out.When = time.Unix(sec, 0).In(loc)
	}
	return out
}
