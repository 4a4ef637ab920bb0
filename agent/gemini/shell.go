package gemini

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ShellExit reads how run_shell_command ended from its tool_response:
// Gemini CLI appends "Exit Code: N" (only when N is not 0) and "Signal: S"
// to the llmContent after the command's output, followed only by lines
// about background and process-group ids, and (0.61) wraps it all in
// <untrusted_context>...</untrusted_context>. Reading from the end, and
// only those trailing lines, keeps a command that prints "Exit Code: 1"
// itself from counting as failed. When the output is empty, returnDisplay
// is "Command exited with code: N" too.
func ShellExit(raw json.RawMessage) (code *int, signal string) {
	var resp struct {
		LLMContent    json.RawMessage `json:"llmContent"`
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
	}
	if json.Unmarshal(raw, &resp) != nil {
		return nil, ""
	}
	var content, display string
	_ = json.Unmarshal(resp.ReturnDisplay, &display)
	if n, ok := strings.CutPrefix(display, "Command exited with code: "); ok {
		if n, err := strconv.Atoi(n); err == nil && n != 0 {
			code = &n
		}
	}
	if json.Unmarshal(resp.LLMContent, &content) != nil {
		return code, ""
	}
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Background PIDs: "), strings.HasPrefix(l, "Process Group PGID: "), isClosingTag(l):
			continue
		case strings.HasPrefix(l, "Signal: "):
			signal = strings.TrimPrefix(l, "Signal: ")
			continue
		case strings.HasPrefix(l, "Exit Code: "):
			if n, err := strconv.Atoi(strings.TrimPrefix(l, "Exit Code: ")); err == nil && n != 0 {
				code = &n
			}
		}
		return code, signal
	}
	return code, signal
}

// isClosingTag tells whether a line is a closing tag such as
// </untrusted_context>.
func isClosingTag(l string) bool {
	t, ok := strings.CutPrefix(l, "</")
	if !ok || !strings.HasSuffix(t, ">") || len(t) < 2 {
		return false
	}
	for _, c := range t[:len(t)-1] {
		if (c < 'a' || c > 'z') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}
