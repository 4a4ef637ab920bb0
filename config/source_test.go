package config

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestFromGitConfig(t *testing.T) {
	t.Parallel()
	keep := func(n int) *int { return &n }
	tests := []struct {
		name    string
		values  map[string][]string
		want    *Config
		wantKey string // the key a *FileError names; empty: no error
	}{
		{name: "unset", values: nil, want: &Config{}},
		{name: "all", values: map[string][]string{
			GitExclude:            {"node_modules/**", "*.log"},
			GitMaxFileSize:        {"1MiB", "16B"}, // the last value wins, as in git
			GitRetentionKeep:      {"3"},
			GitRetentionOlderThan: {"2w"},
		}, want: &Config{Path: SourceGitConfig, Exclude: []string{"node_modules/**", "*.log"}, MaxFileSize: 16,
			Retention: Retention{Keep: keep(3), OlderThan: 14 * 24 * time.Hour}}},
		{name: "unlimited", values: map[string][]string{GitMaxFileSize: {"unlimited"}},
			want: &Config{Path: SourceGitConfig, MaxFileSize: -1}},
		{name: "bad size", values: map[string][]string{GitMaxFileSize: {"0"}}, wantKey: GitMaxFileSize},
		{name: "bad glob", values: map[string][]string{GitExclude: {"[a-"}}, wantKey: GitExclude},
		{name: "empty glob", values: map[string][]string{GitExclude: {""}}, wantKey: GitExclude},
		{name: "negative keep", values: map[string][]string{GitRetentionKeep: {"-1"}}, wantKey: GitRetentionKeep},
		{name: "bad age", values: map[string][]string{GitRetentionOlderThan: {"soon"}}, wantKey: GitRetentionOlderThan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := FromGitConfig(func(k string) []string { return tt.values[k] })
			if tt.wantKey != "" {
				var fe *FileError
				if !errors.As(err, &fe) || fe.Key != tt.wantKey || fe.File != SourceGitConfig || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err = %v, want a *FileError of git config naming %s", err, tt.wantKey)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Path != tt.want.Path || !slices.Equal(got.Exclude, tt.want.Exclude) || got.MaxFileSize != tt.want.MaxFileSize ||
				got.Retention.OlderThan != tt.want.Retention.OlderThan || (got.Retention.Keep == nil) != (tt.want.Retention.Keep == nil) ||
				(got.Retention.Keep != nil && *got.Retention.Keep != *tt.want.Retention.Keep) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMergePrecedence(t *testing.T) {
	t.Parallel()
	one, five := 1, 5
	flags := &Config{Exclude: []string{"f/**"}, MaxFileSize: 100}
	git := &Config{Exclude: []string{"g/**"}, MaxFileSize: 200, Retention: Retention{Keep: &one}}
	head := &Config{Exclude: []string{"h/**"}, MaxFileSize: 300, Retention: Retention{Keep: &five, OlderThan: time.Hour}}
	got := Merge(Layer{SourceFlags, flags}, Layer{SourceGitConfig, git}, Layer{SourceHEAD, head})
	if got.MaxFileSize != 100 {
		t.Errorf("size %d, want the flags' 100", got.MaxFileSize)
	}
	if want := []string{"f/**", "g/**", "h/**"}; !slices.Equal(got.Exclude, want) {
		t.Errorf("exclude %q, want %q (globs add up)", got.Exclude, want)
	}
	if got.Retention.Keep == nil || *got.Retention.Keep != 1 || got.Retention.OlderThan != time.Hour {
		t.Errorf("retention %+v, want keep 1 from git config and older_than 1h from HEAD", got.Retention)
	}
	if want := []string{SourceFlags, SourceGitConfig, SourceHEAD}; !slices.Equal(got.Sources, want) {
		t.Errorf("sources %q, want %q", got.Sources, want)
	}

	got = Merge(Layer{SourceFlags, &Config{}}, Layer{SourceGitConfig, nil}, Layer{SourceHEAD, head})
	if got.MaxFileSize != 300 || !slices.Equal(got.Sources, []string{SourceHEAD}) || got.Path != SourceHEAD {
		t.Errorf("only HEAD set: got size %d, sources %q, path %q", got.MaxFileSize, got.Sources, got.Path)
	}
	if got = Merge(); got.MaxFileSize != 0 || len(got.Sources) != 0 || got.Path != "" {
		t.Errorf("no layers: got %+v, want the zero configuration", got)
	}
}
