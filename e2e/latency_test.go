package e2e

import (
	"slices"
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

// BenchmarkToolUse measures what gitguard's hooks add to each tool use of a
// real agent CLI: every iteration runs the scenario once with the hooks
// 'gitguard init AGENT --write' installs and once without any, and times
// each recorded tool use from the model's tool call to the agent's next
// request. It reports the medians over all iterations and their difference:
//
//	GITGUARD_E2E=1 go test ./e2e -run '^$' -bench ToolUse -benchtime 5x
func BenchmarkToolUse(b *testing.B) {
	requireSuite(b)
	for _, a := range sessions {
		b.Run(a.name, func(b *testing.B) {
			var with, without []time.Duration
			for i := 0; i < b.N; i++ {
				with = append(with, sessionGaps(b, a, true)...)
				without = append(without, sessionGaps(b, a, false)...)
			}
			h, n := median(with), median(without)
			b.ReportMetric(ms(h), "hooks-ms/tool-use")
			b.ReportMetric(ms(n), "none-ms/tool-use")
			b.ReportMetric(ms(h-n), "added-ms/tool-use")
		})
	}
}

// sessionGaps runs one session, with or without gitguard's hooks, and
// returns the time of each tool use gitguard records (with hooks).
func sessionGaps(b *testing.B, a agentSession, hooks bool) []time.Duration {
	b.StopTimer()
	defer b.StartTimer()
	ws := newWorkspace(b)
	a.prepare(b, ws)
	if hooks {
		ws.gitguard(b, "init", a.name, "--write")
	}
	m := newModel(b, ws.dir, a.steps(ws))
	b.StartTimer()
	a.run(b, ws, m)
	b.StopTimer()
	m.results(b)
	var gaps []time.Duration
	for i, g := range m.toolGaps() {
		if tool, _ := a.recorded(m.steps[i]); tool != "" {
			gaps = append(gaps, g)
		}
	}
	return gaps
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
