package gemini

import (
	"encoding/json"
	"strconv"
	"strings"
)

// shellExit reads how run_shell_command ended from its tool_response:
// Gemini CLI appends "Exit Code: N" (only when N is not 0) and "Signal: S"
// to the llmContent after the command's output, followed only by lines
// about background and process-group ids. Reading from the end, and only
// those trailing lines, keeps a command that prints "Exit Code: 1" itself
// from counting as failed.
func shellExit(raw json.RawMessage) (code *int, signal string) {
	var resp struct {
		LLMContent json.RawMessage `json:"llmContent"`
	}
	if json.Unmarshal(raw, &resp) != nil {
		return nil, ""
	}
	var content string
	if json.Unmarshal(resp.LLMContent, &content) != nil {
		return nil, ""
	}
	lines := strings.Split(strings.TrimRight(content, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Background PIDs: "), strings.HasPrefix(l, "Process Group PGID: "):
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
