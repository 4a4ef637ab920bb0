package main

import (
	"runtime"
	"runtime/debug"
)

// commit is set at build time with -ldflags "-X main.commit=..." (see
// scripts/release.sh), beside main.version.
var commit = ""

// versionString is what --version prints: the stamped version and commit;
// without a stamp, what the go command recorded in the binary (go install
// …@v1.2.3 records the module's version, a build in a clone its commit).
func versionString() string {
	v, c := version, commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		if c == "" {
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					c = s.Value[:12]
				}
			}
		}
	}
	if c != "" {
		v += " (" + c + ")"
	}
	return v + " " + runtime.GOOS + "/" + runtime.GOARCH
}
