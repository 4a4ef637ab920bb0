package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLineLength bounds one message line read by Stdio. A longer line is
// answered as a parse error and skipped.
const MaxLineLength = mcp.DefaultMaxLineLength

// Stdio returns the transport 'gitguard mcp' serves on: newline-delimited
// JSON-RPC messages read from r and written to w, as the SDK's
// IOTransport speaks them, with two guarantees more:
//
//   - a line that is not JSON is answered with a parse error (-32700), and
//     JSON that is not a JSON-RPC message with an invalid-request error
//     (-32600); the session goes on (the SDK's transport ends it);
//   - at the end of r, every request already read is answered before the
//     session ends (a client that writes its last request and closes its
//     end gets its answer).
//
// Neither r nor w is closed.
func Stdio(r io.Reader, w io.Writer) mcp.Transport { return &stdio{r: r, w: w} }

type stdio struct {
	r io.Reader
	w io.Writer
}

// Connect starts reading r. The SDK's transport reads only the lines
// checked here, from a pipe; what it writes goes through an answers
// writer that notes which requests have been answered.
func (t *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	out := &answers{w: t.w, pending: map[string]int{}, closed: make(chan struct{})}
	out.cond = sync.NewCond(&out.mu)
	conn, err := (&mcp.IOTransport{Reader: pr, Writer: out, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	go func() {
		err := forward(t.r, pw, out)
		out.drain()
		pw.CloseWithError(err) // nil: the SDK reads io.EOF
	}()
	return conn, nil
}

// forward copies each line of r that holds a JSON-RPC message (or a batch
// of them) to pw, noting its requests as pending, and answers every other
// line itself. It returns at the end of r, or when pw is closed.
func forward(r io.Reader, pw io.Writer, out *answers) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if ok, werr := check(line, tooLong, out); werr != nil {
				return werr
			} else if ok {
				if _, werr := pw.Write(append(line, '\n')); werr != nil {
					return nil // the session is over
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read requests: %w", err)
		}
	}
}

// readLine reads one line without its end, up to MaxLineLength bytes;
// tooLong reports that the line was longer (the rest is skipped).
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLineLength+1 {
			tooLong, line = true, nil
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check decides whether line goes to the server. A line that does not is
// answered here; its error, if any, is the answer's write error.
func check(line []byte, tooLong bool, out *answers) (bool, error) {
	if tooLong || !json.Valid(line) {
		return false, out.refuse(nil, jsonrpc.CodeParseError, "Parse error: not a JSON value on one line")
	}
	msgs, err := decode(line)
	if err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe) // the id to answer, where one can be read
		return false, out.refuse(probe.ID, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
	}
	for _, m := range msgs {
		switch m := m.(type) {
		case *jsonrpc.Request:
			if m.IsCall() {
				out.expect(m.ID)
			} else if m.Method == "notifications/cancelled" {
				out.cancelled(m.Params)
			}
		}
	}
	return true, nil
}

// decode reads a message or a non-empty batch of messages.
func decode(line []byte) ([]jsonrpc.Message, error) {
	if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return nil, err
		}
		if len(batch) == 0 {
			return nil, errors.New("empty batch")
		}
		msgs := make([]jsonrpc.Message, 0, len(batch))
		for _, raw := range batch {
			m, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, err
	}
	return []jsonrpc.Message{m}, nil
}

// answers is the SDK transport's writer: each Write is one whole message
// line (the SDK writes a message and its newline at once). It keeps the
// requests read and not yet answered, so that the end of input can wait
// for them, and it writes the refusals of lines the server never sees
// between the server's messages.
type answers struct {
	w       io.Writer
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]int // request id → requests with it not yet answered
	closed  chan struct{}
	once    sync.Once
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func (a *answers) expect(id jsonrpc.ID) {
	a.mu.Lock()
	a.pending[idKey(id)]++
	a.mu.Unlock()
}

func (a *answers) answered(id jsonrpc.ID) {
	k := idKey(id)
	if a.pending[k] > 1 {
		a.pending[k]--
	} else {
		delete(a.pending, k)
	}
	a.cond.Broadcast()
}

// cancelled forgets a request the client cancelled: it may get no answer.
func (a *answers) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	a.mu.Lock()
	a.answered(id)
	a.mu.Unlock()
}

// Write writes one message line of the server's and notes the responses
// in it.
func (a *answers) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, err := a.w.Write(p)
	if msgs, derr := decode(bytes.TrimSpace(p)); derr == nil {
		for _, m := range msgs {
			if r, ok := m.(*jsonrpc.Response); ok {
				a.answered(r.ID)
			}
		}
	}
	return n, err
}

// refuse answers a line that is not a message with a JSON-RPC error.
func (a *answers) refuse(id json.RawMessage, code int, msg string) error {
	if len(id) == 0 || !validID(id) {
		id = json.RawMessage("null")
	}
	line, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err = a.w.Write(append(line, '\n'))
	return err
}

// validID reports whether a raw id is one JSON-RPC allows: a string or a
// number.
func validID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// drain waits until every request read has been answered, or the
// transport was closed.
func (a *answers) drain() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for len(a.pending) > 0 {
		select {
		case <-a.closed:
			return
		default:
		}
		a.cond.Wait()
	}
}

// Close is called when the session ends: nothing more will be answered.
func (a *answers) Close() error {
	a.once.Do(func() {
		close(a.closed)
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	return nil
}
