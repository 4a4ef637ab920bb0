package protocol

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gitguard/gitguard"
)

// Response answers one request (docs/PROTOCOL.md, "Responses").
type Response struct {
	ID       json.RawMessage `json:"id"` // null when the request had none or was unreadable
	OK       bool            `json:"ok"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
	Hint     string          `json:"hint,omitempty"`
	ExitCode int             `json:"exit_code,omitempty"`
	// Err is the error behind a failed response, for Go callers that
	// match it with errors.Is; it is not sent.
	Err error `json:"-"`
}

// Failure is how an error looks to a client: the message, what to do
// next, and the exit code the CLI would exit with.
type Failure struct {
	Message  string
	Hint     string
	ExitCode int
}

// requestHint is the hint of every RequestError.
const requestHint = `send one JSON object per line, e.g. {"id": 1, "op": "status"}; see 'gitguard serve --help' and docs/PROTOCOL.md`

// DefaultExplain is the Explain of a Server that has none: the error's
// message, no hint, and exit code 2 for bad input (gitguard.ErrUsage), 130
// for a canceled request and 5 for anything else. The gitguard CLI passes
// its own table, which knows every error of the library.
func DefaultExplain(err error) Failure {
	switch {
	case errors.Is(err, context.Canceled):
		return Failure{err.Error(), "", 130}
	case errors.Is(err, gitguard.ErrUsage):
		return Failure{err.Error(), "", 2}
	}
	return Failure{err.Error(), "", 5}
}

// failure explains err: protocol errors here, the rest with s.Explain.
func (s *Server) failure(err error) Failure {
	var (
		bad       *RequestError
		conflicts *ConflictsError
	)
	switch {
	case errors.As(err, &bad):
		return Failure{err.Error(), requestHint, 2}
	case errors.As(err, &conflicts):
		return Failure{err.Error(), "", 1}
	}
	explain := s.Explain
	if explain == nil {
		explain = DefaultExplain
	}
	f := explain(err)
	if f.Message == "" {
		f.Message = err.Error()
	}
	return f
}

// fail is the response to a request that failed with err; result is the
// document the op produced before it failed (an undo plan with conflicts).
func (s *Server) fail(id json.RawMessage, err error, result json.RawMessage) Response {
	f := s.failure(err)
	return Response{ID: id, OK: false, Error: f.Message, Hint: f.Hint, ExitCode: f.ExitCode, Result: result, Err: err}
}
