package odb

import (
	"os"
	"slices"
	"testing"
)

func TestSplitAlternatesEnv(t *testing.T) {
	sep := string(os.PathListSeparator)
	for env, want := range map[string][]string{
		"":                                   nil,
		"/a/objects":                         {"/a/objects"},
		"/a/objects" + sep + "b/objects":     {"/a/objects", "b/objects"},
		sep + "/a" + sep + sep:               {"/a"},
		`"/with` + sep + `sep"` + sep + "/b": {"/with" + sep + "sep", "/b"},
		`"/tab\there"`:                       {"/tab\there"},
		`"/bad`:                              nil,
	} {
		if got := splitAlternatesEnv(env); !slices.Equal(got, want) {
			t.Errorf("splitAlternatesEnv(%q) = %q, want %q", env, got, want)
		}
	}
}
