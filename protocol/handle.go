package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// Server carries out requests: one at a time with Handle, or a stream of
// request lines with Serve. Its fields are read-only once it serves; a
// Server holds no repository state between requests.
type Server struct {
	// Run is the run of requests that name none; empty means the work
	// tree's active run.
	Run record.RunID
	// Gitguard is the gitguard version the version op reports.
	Gitguard string
	// Explain turns an error of the gitguard API into the message, hint and
	// exit code of the response; nil means DefaultExplain.
	Explain func(error) Failure
}

// Handle carries out req on g with a Server that has no default run. See
// Server.Handle.
func Handle(ctx context.Context, g *gitguard.Guard, req Request) Response {
	return (&Server{}).Handle(ctx, g, req)
}

// Handle carries out req on g and returns its response; it never panics on
// a bad request. An op that records writes to the repository through g, as
// the CLI command of the same name does; the others only read. g may be
// nil for the version op. Like g itself, Handle is not safe for concurrent
// use on one Guard; separate guards (and processes) are.
func (s *Server) Handle(ctx context.Context, g *gitguard.Guard, req Request) Response {
	return s.handle(ctx, req, func() (*gitguard.Guard, error) {
		if g == nil {
			return nil, fmt.Errorf("op %s needs a repository, and Handle was given none", req.Op)
		}
		return g, nil
	})
}

// exchange is one request being carried out.
type exchange struct {
	ctx   context.Context
	s     *Server
	req   *Request
	guard func() (*gitguard.Guard, error) // opens the repository on first use
}

// run is the run the request names, else the server's.
func (x *exchange) run() record.RunID {
	if x.req.Run != "" {
		return x.req.Run
	}
	return x.s.Run
}

// handle looks up req's op and runs it; the repository is opened only by
// ops that need it, after the request's own checks.
func (s *Server) handle(ctx context.Context, req Request, guard func() (*gitguard.Guard, error)) Response {
	if req.Op == "" {
		return s.fail(req.ID, requestErrorf("request has no \"op\"; ops: %s", opNames()), nil)
	}
	op := ops[req.Op]
	if op == nil {
		return s.fail(req.ID, requestErrorf("unknown op %q; ops: %s", req.Op, opNames()), nil)
	}
	doc, err := op(&exchange{ctx: ctx, s: s, req: &req, guard: guard})
	var result json.RawMessage
	if doc != nil {
		b, merr := json.Marshal(doc)
		if merr != nil {
			err = errors.Join(err, fmt.Errorf("encode the result of %s: %w", req.Op, merr))
		} else {
			result = b
		}
	}
	if err != nil {
		return s.fail(req.ID, err, result)
	}
	return Response{ID: req.ID, OK: true, Result: result}
}

// opNames lists the ops, sorted, for error messages.
func opNames() string {
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
