package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gitguard/gitguard/internal/hookwire"
)

// MaxPayload bounds what a hook reads from stdin (a write event holds the
// whole file content).
const MaxPayload = hookwire.MaxPayload

// ErrPayload is returned (wrapped in a *PayloadError) for a hook event that
// cannot be read: empty, too large, not JSON, or missing what the agent
// always sends. It is bad input: exit 2.
var ErrPayload = errors.New("bad hook event")

// PayloadError says which agent's event could not be read, and why.
type PayloadError struct {
	Agent string // "Claude Code"
	Msg   string
}

func (e *PayloadError) Error() string { return fmt.Sprintf("bad %s hook event: %s", e.Agent, e.Msg) }

// Unwrap makes errors.Is(err, ErrPayload) hold.
func (e *PayloadError) Unwrap() error { return ErrPayload }

// PayloadErrorf returns a *PayloadError for agent.
func PayloadErrorf(agent, format string, args ...any) error {
	return &PayloadError{Agent: agent, Msg: fmt.Sprintf(format, args...)}
}

// ReadPayload reads one JSON object from r into v, at most MaxPayload bytes.
func ReadPayload(agent string, r io.Reader, v any) error {
	if r == nil {
		return PayloadErrorf(agent, "nothing on stdin")
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return fmt.Errorf("read hook event: %w", err)
	}
	if len(data) > MaxPayload {
		return PayloadErrorf(agent, "larger than %d MiB", MaxPayload>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return PayloadErrorf(agent, "nothing on stdin (%s passes the event as JSON on stdin)", agent)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return PayloadErrorf(agent, "%v", err)
	}
	return nil
}

// ReadEvent reads one hook event of the agent named name from r, as a P,
// and maps it to an Event with event: what every adapter's Read does.
func ReadEvent[P any](name string, r io.Reader, o ReadOptions, event func(*P, ReadOptions) (*Event, error)) (*Event, error) {
	var p P
	if err := ReadPayload(name, r, &p); err != nil {
		return nil, err
	}
	return event(&p, o)
}

// DecodeInput reads a tool input object; null or absent is empty.
func DecodeInput(agent string, raw json.RawMessage) (map[string]any, error) {
	input := map[string]any{}
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return input, nil
	}
	if err := json.Unmarshal(raw, &input); err != nil {
		return nil, PayloadErrorf(agent, "tool_input is not an object: %v", err)
	}
	return input, nil
}
