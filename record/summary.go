package record

import (
	"strconv"
	"strings"
	"time"
)

// Summary is what a checkpoint commit's message says of its run, so that
// the runs of a remote can be listed from their tip commits alone, without
// their trees (see docs/FORMAT.md, "Run summary"). It is advisory: nothing
// is decided on it, and a fetched run is verified from its records.
type Summary struct {
	Run        RunID
	Kind       string // the checkpoint's kind
	Checkpoint string // the checkpoint's id, ckpt_NNN
	StartedAt  time.Time
	// State is "open" or "finished"; empty when the message does not say
	// (checkpoints of older writers).
	State string
	// Calls is the number of calls the run has recorded, OpenCalls those
	// started and not finished; -1 when the message does not say.
	Calls, OpenCalls int
	// Origin names the run (and its checkpoint commit) a run published
	// under a new id continues from; empty for others.
	Origin string
	// Agent names the agent the run records; empty when not known.
	Agent string
}

// Summary trailer keys, one line each in the paragraph after the subject.
const (
	summaryStarted = "Gitguard-Started"
	summaryState   = "Gitguard-State"
	summaryCalls   = "Gitguard-Calls"
	summaryOpen    = "Gitguard-Open-Calls"
	summaryOrigin  = "Gitguard-Origin"
	summaryAgent   = "Gitguard-Agent"
)

// Summary run states.
const (
	SummaryOpen     = "open"
	SummaryFinished = "finished"
)

// CheckpointMessage is the commit message of checkpoint cp: the subject
// "gitguard <kind> <id> of run <run>", the summary paragraph, then the
// label. calls is the run's call count, or -1 when not known.
func CheckpointMessage(cp *Checkpoint, calls int, origin string) string {
	var b strings.Builder
	b.WriteString("gitguard " + string(cp.Kind) + " " + string(cp.ID) + " of run " + string(cp.RunID) + "\n\n")
	started := cp.RunStartedAt
	if started.IsZero() {
		started = cp.CreatedAt
	}
	b.WriteString(summaryStarted + ": " + started.UTC().Format(time.RFC3339Nano) + "\n")
	state := SummaryOpen
	if cp.RunFinished {
		state = SummaryFinished
	}
	b.WriteString(summaryState + ": " + state + "\n")
	if calls >= 0 {
		b.WriteString(summaryCalls + ": " + strconv.Itoa(calls) + "\n")
	}
	if cp.OpenKnown {
		b.WriteString(summaryOpen + ": " + strconv.Itoa(len(cp.Open)) + "\n")
	}
	if origin != "" {
		b.WriteString(summaryOrigin + ": " + origin + "\n")
	}
	if a := summaryText(cp.Agent); a != "" {
		b.WriteString(summaryAgent + ": " + a + "\n")
	}
	if cp.Label != "" {
		b.WriteString("\n" + cp.Label + "\n")
	}
	return b.String()
}

// summaryText is s as a summary line may carry it: printable ASCII only
// (others dropped), trimmed, at most 64 bytes.
func summaryText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 64; i++ {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// ParseSummary reads what a checkpoint commit's message says of its run. It
// returns false when the subject is not a checkpoint's. A message without
// a summary paragraph (older writers) gives the subject's facts only.
// Values it cannot parse are left unknown; it never fails otherwise.
func ParseSummary(msg string) (Summary, bool) {
	s := Summary{Calls: -1, OpenCalls: -1}
	subject, rest, _ := strings.Cut(msg, "\n")
	f := strings.Fields(subject)
	if len(f) != 6 || f[0] != "gitguard" || f[3] != "of" || f[4] != "run" {
		return s, false
	}
	id, err := ParseRunID(f[5])
	if err != nil {
		return s, false
	}
	s.Run, s.Kind, s.Checkpoint = id, f[1], f[2]
	rest = strings.TrimPrefix(rest, "\n")
	para, _, _ := strings.Cut(rest, "\n\n")
	for _, line := range strings.Split(para, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(k, "Gitguard-") {
			return s, true // not a summary paragraph: the label of an older writer
		}
		switch k {
		case summaryStarted:
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				s.StartedAt = t
			}
		case summaryState:
			if v == SummaryOpen || v == SummaryFinished {
				s.State = v
			}
		case summaryCalls:
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				s.Calls = n
			}
		case summaryOpen:
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				s.OpenCalls = n
			}
		case summaryOrigin:
			s.Origin = v
		case summaryAgent:
			s.Agent = summaryText(v)
		}
	}
	return s, true
}
