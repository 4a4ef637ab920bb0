package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
)

// openaiServer serves the OpenAI Responses API (SSE) from the scripted model,
// the way Codex reads it: response.created, one response.output_item.done
// (a function_call, a custom_tool_call, or the closing message), then
// response.completed.
func openaiServer(m *model) *httptest.Server {
	var toolsLogged bool
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
			m.logf("%s %s: not served", r.Method, r.URL)
			http.NotFound(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		var req openaiRequest
		if err == nil {
			err = json.Unmarshal(body, &req)
		}
		if err != nil {
			m.logf("POST %s: bad body: %v", r.URL, err)
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		if len(req.Tools) == 0 {
			m.logf("POST %s model=%s: side request", r.URL, req.Model)
			writeOpenAI(w, map[string]any{"type": "message", "role": "assistant", "id": "msg_side",
				"content": []any{map[string]any{"type": "output_text", "text": "ok"}}})
			return
		}
		if !toolsLogged {
			toolsLogged = true
			m.logf("tools offered: %s", req.toolNames())
		}
		n, last := req.toolResults()
		m.logf("POST %s model=%s results=%d", r.URL, req.Model, n)
		s, i := m.turn(n, func(i int) string { return fmt.Sprintf("call_e2e_%02d", i) }, last, codexFailed(last))
		if s == nil {
			writeOpenAI(w, map[string]any{"type": "message", "role": "assistant", "id": "msg_final",
				"content": []any{map[string]any{"type": "output_text", "text": m.final}}})
			return
		}
		id := fmt.Sprintf("call_e2e_%02d", i)
		if s.custom != "" {
			writeOpenAI(w, map[string]any{"type": "custom_tool_call", "call_id": id, "name": s.tool, "input": s.custom})
		} else {
			args, _ := json.Marshal(s.args)
			writeOpenAI(w, map[string]any{"type": "function_call", "call_id": id, "name": s.tool, "arguments": string(args)})
		}
		m.sent(i)
	}))
}

type openaiRequest struct {
	Model string            `json:"model"`
	Tools []json.RawMessage `json:"tools"`
	Input []struct {
		Type   string          `json:"type"`
		Output json.RawMessage `json:"output"`
	} `json:"input"`
}

func (r openaiRequest) toolNames() string {
	var names []string
	for _, t := range r.Tools {
		var d struct{ Type, Name string }
		_ = json.Unmarshal(t, &d)
		names = append(names, d.Type+":"+d.Name)
	}
	return strings.Join(names, " ")
}

// toolResults counts function and custom tool outputs and returns the last.
func (r openaiRequest) toolResults() (n int, last string) {
	for _, it := range r.Input {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			n++
			var s string
			if json.Unmarshal(it.Output, &s) != nil {
				s = string(it.Output)
			}
			last = s
		}
	}
	return n, last
}

// codexExit finds the exit code Codex reports in a tool output.
var codexExit = regexp.MustCompile(`(?i)(?:exit code|exited with code)[: ]+(\d+)`)

// codexFailed reads a Codex tool output: a non-zero exit code, or an
// apply_patch that did not apply.
func codexFailed(out string) bool {
	if m := codexExit.FindStringSubmatch(out); m != nil {
		return m[1] != "0"
	}
	return strings.Contains(out, "apply_patch verification failed") || strings.Contains(out, "Failed to find")
}

func writeOpenAI(w http.ResponseWriter, item map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(data map[string]any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], j)
	}
	ev(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_e2e"}})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_e2e",
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": nil, "output_tokens": 10,
			"output_tokens_details": nil, "total_tokens": 110}}})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
