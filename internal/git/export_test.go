package git

import "time"

// SetRacyWindow lets tests cache configuration files they just wrote; it
// returns a function that restores the window.
func SetRacyWindow(d time.Duration) (restore func()) {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}

// LookGit exposes lookGit.
var LookGit = lookGit
