// Package fault marks the points where tests kill gitguard to prove it is
// crash-consistent: after object writes, around ref updates, between the
// file writes of an undo. In normal runs Hook is nil and a point costs one
// nil check. Only the command sets Hook (from GITGUARD_FAULT, read by tests).
package fault

// Hook is called with the name of each point reached; nil disables it.
var Hook func(point string)

// Point reports that point name was reached.
func Point(name string) {
	if Hook != nil {
		Hook(name)
	}
}
