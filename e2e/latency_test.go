package e2e

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// agentSession sets up and runs one agent's scripted session.
type agentSession struct {
	name     string
	steps    func(ws *workspace) []step
	prepare  func(tb testing.TB, ws *workspace)
	run      func(tb testing.TB, ws *workspace, m *model)
	recorded func(step) (tool, status string)
}

var sessions = []agentSession{
	{name: "claude-code", steps: func(ws *workspace) []step { return scenario(claudeVocab(ws.dir)) },
		prepare: func(testing.TB, *workspace) {}, run: runClaude, recorded: claudeRecorded},
	{name: "codex", steps: func(*workspace) []step { return scenario(codexVocab()) },
		prepare: func(testing.TB, *workspace) {},
		run:     func(tb testing.TB, ws *workspace, m *model) { runCodex(tb, ws, m, false) }, recorded: codexRecorded},
	{name: "gemini", steps: func(ws *workspace) []step { return scenario(geminiVocab(ws.dir)) },
		prepare: writeGeminiUserSettings,
		run:     runGemini, recorded: geminiRecorded},
	{name: "opencode", steps: func(ws *workspace) []step { return scenario(opencodeVocab(ws.dir)) },
		prepare: warmOpencodePlugins, run: runOpencode, recorded: opencodeRecorded},
	{name: "qwen", steps: func(ws *workspace) []step { return scenario(qwenVocab(ws.dir)) },
		prepare: writeQwenUserSettings, run: runQwen, recorded: qwenRecorded},
	{name: "copilot", steps: func(ws *workspace) []step { return scenario(copilotVocab(ws.dir)) },
		prepare: func(testing.TB, *workspace) {}, run: runCopilot, recorded: copilotRecorded},
	{name: "kilo", steps: func(ws *workspace) []step { return scenario(opencodeVocab(ws.dir)) },
		prepare: func(testing.TB, *workspace) {}, run: runKilo, recorded: opencodeRecorded},
}

// hookMode is how a benchmarked session is hooked.
type hookMode int

const (
	noHooks       hookMode = iota // no hooks at all
	noopHooks                     // gitguard's events and matchers, a command that only reads the event
	gitguardHooks                 // what 'gitguard init AGENT --write' installs
	hookModes
)

// noopCommand is a hook that reads its event and does nothing, started the
// way each agent starts gitguard's: through a shell, except opencode's
// plugin, which runs the command's words itself (and ignores its output).
// The words after the script are the shell's $0 and $1, unused: they make
// the command one 'gitguard init' recognises as its hook.
//
// GITGUARD_E2E_NOOP replaces the script (not opencode's command): a hook
// made to live as long as gitguard's, such as 'cat >/dev/null; sleep
// 0.001', tells what the agent itself charges per millisecond of a hook's
// life, apart from what gitguard's hooks do.
func noopCommand(agent string) string {
	if agent == "opencode" {
		return "cat"
	}
	script := "cat >/dev/null"
	if s := os.Getenv("GITGUARD_E2E_NOOP"); s != "" {
		script = s
	}
	return "sh -c '" + strings.ReplaceAll(script, "'", `'\''`) + "' hook " + agent
}

// BenchmarkToolUse measures what gitguard's hooks add to each tool use of a
// real agent CLI, against the floor every hook-based guard pays: each
// iteration runs the scenario three times, in turn first — with no hooks,
// with hooks on the same events and tools whose command only reads the
// event (noopCommand), and with the hooks 'gitguard init AGENT --write'
// installs — and times each recorded tool use from the model's tool call
// to the agent's next request. A tool use's added time is its time with
// hooks less its time without, in the same iteration; the medians of those
// are reported for the first tool use of a session (the one that finds no
// run and, without a daemon started earlier, starts it) and for the later
// ones, overall and per tool, with gitguard's added time divided by the
// no-op hooks':
//
//	GITGUARD_E2E=1 go test ./e2e -run '^$' -bench ToolUse -benchtime 5x
//	GITGUARD_E2E=1 go test ./e2e -run '^$' -bench 'ToolUse/(claude-code|codex|gemini)$' -benchtime 5x -v
//
// The table per tool is logged (-v shows it), with the load average before
// and after: the machine's other work moves every number.
func BenchmarkToolUse(b *testing.B) {
	requireSuite(b)
	for _, a := range sessions {
		b.Run(a.name, func(b *testing.B) {
			load := loadAverage()
			var runs [hookModes][]sessionTimes
			for i := 0; i < b.N; i++ {
				for k := range hookModes {
					mode := (hookMode(i) + k) % hookModes // each mode goes first in turn
					runs[mode] = append(runs[mode], sessionGaps(b, a, mode))
				}
			}
			r := summarize(runs)
			none := r.total[noHooks]
			b.ReportMetric(ms(none.later), "none-ms/later")
			b.ReportMetric(ms(r.added[noopHooks].later), "noop-added-ms/later")
			b.ReportMetric(ms(r.added[gitguardHooks].later), "gitguard-added-ms/later")
			b.ReportMetric(ratio(r.added[gitguardHooks].later, r.added[noopHooks].later), "gitguard/noop-later")
			b.ReportMetric(ms(r.added[noopHooks].first), "noop-added-ms/first")
			b.ReportMetric(ms(r.added[gitguardHooks].first), "gitguard-added-ms/first")
			b.ReportMetric(ratio(r.added[gitguardHooks].first, r.added[gitguardHooks].later), "gitguard-first/later")
			b.Logf("%s, %d sessions each way, load average %s before, %s after\n%s", a.name, b.N, load, loadAverage(), r.table())
		})
	}
}

// sessionTimes is one session's recorded tool uses, in order.
type sessionTimes []toolTime

type toolTime struct {
	tool string
	gap  time.Duration
}

// sessionGaps runs one session hooked as mode says and returns the time
// of each tool use gitguard records (with its hooks).
func sessionGaps(b *testing.B, a agentSession, mode hookMode) sessionTimes {
	b.StopTimer()
	defer b.StartTimer()
	ws := newWorkspace(b)
	a.prepare(b, ws)
	switch mode {
	case noopHooks:
		ws.gitguard(b, "init", a.name, "--write", "--command", noopCommand(a.name))
	case gitguardHooks:
		ws.gitguard(b, "init", a.name, "--write")
	}
	m := newModel(b, ws.dir, a.steps(ws))
	b.StartTimer()
	a.run(b, ws, m)
	b.StopTimer()
	m.results(b)
	var out sessionTimes
	for i, g := range m.toolGaps() {
		if tool, _ := a.recorded(m.steps[i]); tool != "" {
			out = append(out, toolTime{m.steps[i].tool, g})
		}
	}
	return out
}

// firstLater is a median for a session's first tool use and one for the
// later ones.
type firstLater struct{ first, later time.Duration }

type toolSummary struct {
	tool  string
	n     int                      // tool uses of this tool per session, after the first
	total [hookModes]time.Duration // median time per tool use
	added [hookModes]time.Duration // median added time per tool use, against no hooks
}

type latencySummary struct {
	total, added [hookModes]firstLater
	tools        []toolSummary // in the scenario's order
}

// summarize pairs each session's tool uses with those of the session
// without hooks of the same iteration, step by step.
func summarize(runs [hookModes][]sessionTimes) latencySummary {
	var r latencySummary
	var order []string
	byTool := map[string]*toolSummary{}
	var toolTotal, toolAdded [hookModes]map[string][]time.Duration
	for mode := range hookModes {
		var first, later, addFirst, addLater []time.Duration
		toolTotal[mode], toolAdded[mode] = map[string][]time.Duration{}, map[string][]time.Duration{}
		for i, s := range runs[mode] {
			base := runs[noHooks][i]
			for j, t := range s {
				if j >= len(base) || base[j].tool != t.tool {
					continue // a session that went otherwise; not paired
				}
				d := t.gap - base[j].gap
				if j == 0 {
					first, addFirst = append(first, t.gap), append(addFirst, d)
					continue
				}
				later, addLater = append(later, t.gap), append(addLater, d)
				if byTool[t.tool] == nil {
					byTool[t.tool] = &toolSummary{tool: t.tool}
					order = append(order, t.tool)
				}
				toolTotal[mode][t.tool] = append(toolTotal[mode][t.tool], t.gap)
				toolAdded[mode][t.tool] = append(toolAdded[mode][t.tool], d)
			}
		}
		r.total[mode] = firstLater{median(first), median(later)}
		r.added[mode] = firstLater{median(addFirst), median(addLater)}
	}
	for _, name := range order {
		ts := byTool[name]
		for mode := range hookModes {
			ts.total[mode], ts.added[mode] = median(toolTotal[mode][name]), median(toolAdded[mode][name])
		}
		if n := len(runs[noHooks]); n > 0 {
			ts.n = len(toolTotal[noHooks][name]) / n
		}
		r.tools = append(r.tools, *ts)
	}
	return r
}

// table spells the summary as a markdown table: time without hooks, time
// added by the no-op hooks and by gitguard's, and the ratio of the two.
func (r latencySummary) table() string {
	var b strings.Builder
	b.WriteString("| tool uses | none ms | noop +ms | gitguard +ms | gitguard ÷ noop |\n|---|---:|---:|---:|---:|\n")
	row := func(name string, none, noop, gg time.Duration) {
		fmt.Fprintf(&b, "| %s | %.0f | %+.0f | %+.0f | %.2f |\n", name, ms(none), ms(noop), ms(gg), ratio(gg, noop))
	}
	row("first", r.total[noHooks].first, r.added[noopHooks].first, r.added[gitguardHooks].first)
	row("later", r.total[noHooks].later, r.added[noopHooks].later, r.added[gitguardHooks].later)
	for _, t := range r.tools {
		row(fmt.Sprintf("later %s (%d per session)", t.tool, t.n), t.total[noHooks], t.added[noopHooks], t.added[gitguardHooks])
	}
	fmt.Fprintf(&b, "gitguard's first ÷ later added: %.2f", ratio(r.added[gitguardHooks].first, r.added[gitguardHooks].later))
	return b.String()
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// loadAverage is the system's load average over 1, 5 and 15 minutes, where
// the system says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
