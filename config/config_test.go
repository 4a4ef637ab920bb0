package config

import (
	"errors"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	cfg, err := Parse("x.toml", []byte(`# comment
exclude = ["node_modules/**", "*.log"]
max_file_size = "64MiB"

[retention]
keep = 5
older_than = "30d"
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Exclude) != 2 || cfg.MaxFileSize != 64<<20 || *cfg.Retention.Keep != 5 || cfg.Retention.OlderThan != 30*24*time.Hour {
		t.Fatalf("got %+v", cfg)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		line     int
		key      string
	}{
		{"unknown top key", "exclude = []\nexlude = [\"a\"]\n", 2, "exlude"},
		{"unknown table key", "[retention]\nkeep = 1\nkepp = 3\n", 3, "retention.kepp"},
		{"unknown table", "\n[retension]\nkeep = 1\n", 2, "retension"},
		{"bad size", "max_file_size = \"64XB\"\n", 1, "max_file_size"},
		{"zero size", "\n\nmax_file_size = \"0\"\n", 3, "max_file_size"},
		{"size not a string", "max_file_size = 64\n", 1, "max_file_size"},
		{"bad duration", "[retention]\nolder_than = \"soon\"\n", 2, "retention.older_than"},
		{"negative keep", "[retention]\n\nkeep = -1\n", 3, "retention.keep"},
		{"keep not a number", "[retention]\nkeep = \"x\"\n", 2, "retention.keep"},
		{"bad glob", "exclude = [\"a[\"]\n", 1, "exclude"},
		{"exclude not a list", "exclude = \"a\"\n", 1, "exclude"},
		{"syntax", "exclude = [\n", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("x.toml", []byte(tt.in))
			var fe *FileError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want a *FileError wrapping ErrInvalid", err)
			}
			if fe.Line != tt.line || fe.Key != tt.key || fe.File != "x.toml" {
				t.Fatalf("got %s (line %d key %q), want line %d key %q", fe, fe.Line, fe.Key, tt.line, tt.key)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"1": 1, "10B": 10, "1KB": 1000, "1kib": 1024, "64MiB": 64 << 20, "2G": 2 << 30, "unlimited": -1, " 5 MB ": 5e6,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "-1", "1XB", "0", "99999999999999999999"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
}

func TestParseAge(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"720h": 720 * time.Hour, "30d": 720 * time.Hour, "2w": 14 * 24 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "0h", "-1h", "3x", "1.5d"} {
		if _, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) succeeded", in)
		}
	}
}
