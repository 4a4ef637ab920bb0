package agent

import "encoding/json"

// ToolResponseError tells whether a tool_response reports an error:
// {"is_error": true}, {"success": false}, {"error": "..."} (or an error
// object with a message) or {"interrupted": true}, and returns its message.
func ToolResponseError(raw json.RawMessage) (string, bool) {
	var resp map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &resp) != nil {
		return "", false
	}
	msg := StringField(resp, "error", "stderr", "message")
	if s, ok := resp["error"].(string); ok && s != "" {
		return s, true
	}
	if e, ok := resp["error"].(map[string]any); ok {
		return orDefault(StringField(e, "message", "type"), "the tool reported an error"), true
	}
	if b, ok := resp["is_error"].(bool); ok && b {
		return orDefault(msg, "the tool reported an error"), true
	}
	if b, ok := resp["success"].(bool); ok && !b {
		return orDefault(msg, "the tool reported no success"), true
	}
	if b, ok := resp["interrupted"].(bool); ok && b {
		return "interrupted", true
	}
	return "", false
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
