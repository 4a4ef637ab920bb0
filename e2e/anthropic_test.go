package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// anthropicServer serves the Anthropic Messages API (streaming and not) from
// the scripted model: a tool call is one tool_use block, the close is text.
// Requests without tools (titles, summaries) get a short text answer.
func anthropicServer(m *model) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/messages/count_tokens", func(w http.ResponseWriter, r *http.Request) {
		m.logf("%s %s", r.Method, r.URL)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 100}`)
	})
	mux.HandleFunc("/v1/messages", func(w http.ResponseWriter, r *http.Request) {
		var req anthropicRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			m.logf("POST %s: bad body: %v", r.URL, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(req.Tools) == 0 {
			m.logf("POST %s model=%s stream=%v: side request", r.URL, req.Model, req.Stream)
			writeAnthropic(w, req, anthropicBlock{Type: "text", Text: "Scripted session"}, "end_turn")
			return
		}
		n, last, isErr := req.toolResults()
		m.logf("POST %s model=%s stream=%v tools=%d results=%d", r.URL, req.Model, req.Stream, len(req.Tools), n)
		s, i := m.turn(n, func(i int) string { return fmt.Sprintf("toolu_e2e_%02d", i) }, last, isErr)
		if s == nil {
			writeAnthropic(w, req, anthropicBlock{Type: "text", Text: m.final}, "end_turn")
			return
		}
		writeAnthropic(w, req, anthropicBlock{Type: "tool_use", ID: fmt.Sprintf("toolu_e2e_%02d", i), Name: s.tool, Input: s.args}, "tool_use")
		m.sent(i)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		m.logf("%s %s: not served", r.Method, r.URL)
		http.NotFound(w, r)
	})
	return httptest.NewServer(mux)
}

type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// toolResults counts the tool_result blocks of the conversation and returns
// the last one's text and error flag.
func (r anthropicRequest) toolResults() (n int, last string, isErr bool) {
	for _, msg := range r.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			IsError bool            `json:"is_error"`
			Content json.RawMessage `json:"content"`
		}
		if msg.Role != "user" || json.Unmarshal(msg.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				n++
				last, isErr = string(b.Content), b.IsError
			}
		}
	}
	return n, last, isErr
}

type anthropicBlock struct {
	Type  string `json:"type"`
	Text  string `json:"text,omitempty"`
	ID    string `json:"id,omitempty"`
	Name  string `json:"name,omitempty"`
	Input any    `json:"input,omitempty"`
}

func writeAnthropic(w http.ResponseWriter, req anthropicRequest, b anthropicBlock, stop string) {
	msg := map[string]any{"id": "msg_e2e", "type": "message", "role": "assistant", "model": req.Model,
		"stop_reason": nil, "stop_sequence": nil, "content": []any{},
		"usage": map[string]int{"input_tokens": 100, "output_tokens": 1}}
	if !req.Stream {
		msg["content"], msg["stop_reason"] = []any{b}, stop
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	ev := func(name string, data any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, j)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": msg})
	start := map[string]any{"type": b.Type}
	var delta map[string]any
	switch b.Type {
	case "text":
		start["text"] = ""
		delta = map[string]any{"type": "text_delta", "text": b.Text}
	case "tool_use":
		start["id"], start["name"], start["input"] = b.ID, b.Name, map[string]any{}
		in, _ := json.Marshal(b.Input)
		delta = map[string]any{"type": "input_json_delta", "partial_json": string(in)}
	}
	ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
	ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": 10}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

var _ = strings.TrimSpace
