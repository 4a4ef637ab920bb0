package gitguard

import (
	"log/slog"

	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/git"
)

// SetGitLogger makes every git process gitguard starts log one Debug record
// (arguments, folder, time taken) to l; nil turns it off.
func SetGitLogger(l *slog.Logger) { git.Logger = l }

// ArmFaults arms gitguard's crash points for tests of crash consistency:
// spec is a comma-separated list of POINT:N (the process kills itself the
// N-th time POINT is reached) and, with logPath set, every point reached is
// appended to that file. Not meant for users; the command reads both from
// GITGUARD_FAULT and GITGUARD_FAULT_LOG.
func ArmFaults(spec, logPath string) { fault.Arm(spec, logPath) }
