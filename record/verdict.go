package record

// Verdict says whether a runtime may run a call again after a resume.
type Verdict string

// Verdicts.
const (
	VerdictAllowed    Verdict = "allowed"     // repeating it is harmless
	VerdictCheckFirst Verdict = "check-first" // look at the world before repeating it
	VerdictForbidden  Verdict = "forbidden"   // never repeat it without asking the user
)

// VerdictOf combines a call's idempotency, status and replay policy.
// Unknown idempotency counts as conditional. A call that never started may
// run; a denied call never.
func VerdictOf(e LedgerEntry) Verdict {
	idem := e.Idempotency
	if idem == "" {
		idem = Conditional
	}
	var v Verdict
	switch e.Status {
	case StatusDenied:
		return VerdictForbidden
	case StatusPlanned, StatusApproved:
		v = VerdictAllowed
	case StatusFailed:
		v = map[Idempotency]Verdict{Idempotent: VerdictAllowed,
			Conditional: VerdictCheckFirst, NonIdempotent: VerdictCheckFirst}[idem]
	default: // succeeded, uncertain, started
		v = map[Idempotency]Verdict{Idempotent: VerdictAllowed,
			Conditional: VerdictCheckFirst, NonIdempotent: VerdictForbidden}[idem]
	}
	switch e.ReplayPolicy {
	case ReplayNever:
		v = VerdictForbidden
	case ReplayAsk:
		if v == VerdictAllowed {
			v = VerdictCheckFirst
		}
	}
	return v
}
