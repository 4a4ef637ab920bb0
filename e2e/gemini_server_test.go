package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// geminiServer serves the Gemini API's generateContent and
// streamGenerateContent (?alt=sse) from the scripted model: a tool call is
// one functionCall part, the close is text. Requests that declare no tools
// (next-speaker checks, model routing) get a JSON or text answer that ends
// the turn.
func geminiServer(m *model) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		stream := strings.HasSuffix(path, ":streamGenerateContent")
		switch {
		case strings.HasSuffix(path, ":countTokens"):
			m.logf("%s %s", r.Method, r.URL)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"totalTokens": 100}`)
			return
		case stream || strings.HasSuffix(path, ":generateContent"):
		default:
			m.logf("%s %s: not served", r.Method, r.URL)
			http.NotFound(w, r)
			return
		}
		var req geminiRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			m.logf("POST %s: bad body: %v", r.URL, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if !req.hasTools() {
			m.logf("POST %s mime=%s: side request", r.URL, req.GenerationConfig.ResponseMimeType)
			text := "ok"
			if strings.Contains(req.GenerationConfig.ResponseMimeType, "json") {
				text = `{"reasoning": "scripted", "next_speaker": "user", "model_choice": "flash"}`
			}
			writeGemini(w, stream, map[string]any{"text": text})
			return
		}
		n, last, isErr := req.toolResults()
		m.logf("POST %s results=%d", r.URL, n)
		s, i := m.turn(n, func(i int) string { return fmt.Sprintf("gemini-step-%02d", i) }, last, isErr)
		if s == nil {
			writeGemini(w, stream, map[string]any{"text": m.final})
			return
		}
		writeGemini(w, stream, map[string]any{"functionCall": map[string]any{"name": s.tool, "args": s.args}})
		m.sent(i)
	}))
}

type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			FunctionResponse *struct {
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func (r geminiRequest) hasTools() bool {
	for _, t := range r.Tools {
		if len(t.FunctionDeclarations) > 0 {
			return true
		}
	}
	return false
}

// toolResults counts the functionResponse parts and returns the last one;
// Gemini CLI reports a failed tool with an "error" key in the response.
func (r geminiRequest) toolResults() (n int, last string, isErr bool) {
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse == nil {
				continue
			}
			n++
			last = string(p.FunctionResponse.Response)
			var resp map[string]json.RawMessage
			_ = json.Unmarshal(p.FunctionResponse.Response, &resp)
			_, isErr = resp["error"]
			// A shell command's exit status is in its output, not an error.
			if m := codexExit.FindStringSubmatch(last); m != nil && m[1] != "0" {
				isErr = true
			}
		}
	}
	return n, last, isErr
}

func writeGemini(w http.ResponseWriter, stream bool, part map[string]any) {
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  "gemini-2.5-pro",
	}
	j, _ := json.Marshal(resp)
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write(j)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", j)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
