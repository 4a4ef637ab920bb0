package protocol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gitguard/gitguard"
)

// MaxRequestLine bounds one request line; a longer one is answered with an
// error and skipped.
const MaxRequestLine = 16 << 20

// Opener opens the repository for one request. Serve opens it afresh for
// each request that needs it and closes it after the response, so other
// processes may work on the repository between requests.
type Opener func(context.Context) (*gitguard.Guard, error)

// Serve reads request lines from r and writes exactly one response line
// per request to w, in order, flushing each before reading on; an empty
// line gets no response. It returns nil at the end of r, ctx.Err() when
// ctx is done between requests (a request in progress gets its response
// first), and the error of a failed read or write. Requests that cannot be
// read, or that fail, are answered and do not stop it. When Serve returns
// early, a Read of r still in progress is left to finish on its own
// goroutine; nothing it returns is used.
func (s *Server) Serve(ctx context.Context, open Opener, r io.Reader, w io.Writer) error {
	done := make(chan struct{})
	defer close(done)
	lines := make(chan line)
	go readLines(r, lines, done)
	bw := bufio.NewWriter(w)
	for {
		var l line
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok = <-lines:
		}
		if !ok {
			return nil // end of input
		}
		if l.err != nil {
			return fmt.Errorf("read request: %w", l.err)
		}
		var resp Response
		switch {
		case l.tooLong:
			resp = s.fail(nil, requestErrorf("request line longer than %d MiB", MaxRequestLine>>20), nil)
		case len(bytes.TrimSpace(l.data)) == 0:
			continue
		default:
			resp = s.serveLine(ctx, open, l.data)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			// Still one answer per request: an internal error without the
			// part that could not be encoded.
			b, err = json.Marshal(s.fail(nil, fmt.Errorf("encode response: %w", err), nil))
			if err != nil {
				return fmt.Errorf("encode response: %w", err)
			}
		}
		bw.Write(b)
		bw.WriteByte('\n')
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

// serveLine answers one non-empty line, with the repository opened for it
// if its op needs one.
func (s *Server) serveLine(ctx context.Context, open Opener, data []byte) Response {
	req, err := parseRequest(data)
	if err != nil {
		return s.fail(req.ID, err, nil)
	}
	var g *gitguard.Guard
	defer func() {
		if g != nil {
			g.Close()
		}
	}()
	return s.handle(ctx, req, func() (*gitguard.Guard, error) {
		if g != nil {
			return g, nil
		}
		var err error
		g, err = open(ctx)
		return g, err
	})
}

// line is one request line, or why there is none.
type line struct {
	data    []byte
	tooLong bool
	err     error
}

// readLines sends r's lines until the end of r or until done is closed;
// it closes out at the end of r.
func readLines(r io.Reader, out chan<- line, done <-chan struct{}) {
	send := func(l line) bool {
		select {
		case out <- l:
			return true
		case <-done:
			return false
		}
	}
	defer close(out)
	if r == nil {
		return
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var data []byte
		tooLong := false
		for {
			chunk, err := br.ReadSlice('\n')
			if len(data)+len(chunk) > MaxRequestLine {
				tooLong, data = true, nil
			} else if !tooLong {
				data = append(data, chunk...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && !errors.Is(err, io.EOF) {
				send(line{err: err})
				return
			}
			if len(data) > 0 || tooLong {
				if !send(line{data: data, tooLong: tooLong}) {
					return
				}
			}
			if err != nil {
				return
			}
			break
		}
	}
}
