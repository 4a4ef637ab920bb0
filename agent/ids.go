package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// RunID derives the run id of an agent session: prefix and the session id
// cut down to the run id alphabet. An empty session is "unknown", or a
// hash of fallback (a transcript path, say) when there is one.
func RunID(prefix, session, fallback string) record.RunID {
	sid := session
	if sid == "" {
		sid = "unknown"
		if fallback != "" {
			sid = "t" + ShortHash(fallback)
		}
	}
	id := prefix + SanitizeID(sid, func(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' },
		record.MaxRunIDLen-len(prefix))
	for strings.HasSuffix(id, ".") || strings.HasSuffix(id, ".lock") {
		id = strings.TrimSuffix(strings.TrimSuffix(id, "."), ".lock") + "_"
	}
	return record.RunIDOf(id)
}

// CallID maps an agent's tool call id into the call id alphabet.
func CallID(toolUseID string) record.CallID {
	id := SanitizeID(toolUseID, func(c byte) bool {
		return isAlnum(c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@'
	}, 128)
	if !isAlnum(id[0]) {
		id = "t" + id
		if len(id) > 128 {
			id = id[:128]
		}
	}
	return record.CallIDOf(id)
}

// SanitizeID maps an id into an alphabet: characters outside it become
// '_', ".." is broken up, and when anything changed (or the id is too
// long) a hash of the original is appended so distinct ids stay distinct.
func SanitizeID(s string, ok func(byte) bool, maxLen int) string {
	b := []byte(s)
	for i := range b {
		if !ok(b[i]) {
			b[i] = '_'
		}
	}
	out := string(b)
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", "._")
	}
	if out == "" {
		out = "x"
	}
	if out != s || len(out) > maxLen {
		h := ShortHash(s)
		if len(out) > maxLen-len(h)-1 {
			out = out[:maxLen-len(h)-1]
		}
		out = strings.TrimRight(out, ".") + "-" + h
	}
	return out
}

// ShortHash is the first 16 hex digits of the SHA-256 of s.
func ShortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// InputHash hashes a tool input in a canonical form (sorted keys), so the
// events before and after a tool use agree whatever the key order.
func InputHash(input map[string]any) string {
	b, _ := json.Marshal(input)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// StringField returns the first non-empty string among m's keys.
func StringField(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// Summarize shortens a one-line summary for the ledger.
func Summarize(s string) string {
	s = strings.TrimSpace(s)
	const maxLen = 500
	if len(s) > maxLen {
		cut := maxLen
		for cut > 0 && s[cut]&0xc0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
