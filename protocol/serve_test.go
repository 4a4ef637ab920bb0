package protocol_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/protocol"
)

// serve runs Serve over input and returns the response lines, decoded.
func (f *fixture) serve(input string) []protocol.Response {
	f.t.Helper()
	var out bytes.Buffer
	if err := f.srv.Serve(f.ctx, f.opener, strings.NewReader(input), &out); err != nil {
		f.t.Fatalf("Serve: %v", err)
	}
	f.checkInvariant1("Serve")
	return responses(f.t, out.Bytes())
}

func responses(t *testing.T, out []byte) []protocol.Response {
	t.Helper()
	var resps []protocol.Response
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r protocol.Response
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("response line %q: %v", sc.Text(), err)
		}
		resps = append(resps, r)
	}
	return resps
}

const requestHint = `send one JSON object per line, e.g. {"id": 1, "op": "status"}; see 'gitguard serve --help' and docs/PROTOCOL.md`

const opList = "call.approve, call.capture_after, call.capture_before, call.deny, call.finish, call.plan, call.start, " +
	"diff, ledger, redo, resume, run.finish, run.start, snapshot, status, undo, version"

// TestRequestErrors: every line that does not follow the protocol gets one
// answer with exit code 2, the protocol's hint and the id when it can be
// read, changes nothing, and the server goes on.
func TestRequestErrors(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	refs := f.agentRefs()
	cases := []struct {
		line, id, msg string
	}{
		{`not json`, "null", "malformed request: invalid character 'o' in literal null (expecting 'u')"},
		{`{"id": 2, "op": "status"`, "null", "malformed request: unexpected EOF"},
		{`[1, 2]`, "null", "malformed request: json: cannot unmarshal array into Go value of type protocol.Request"},
		{`{"id": 4, "op": "status"} {"id": 5}`, "4", "malformed request: more than one JSON value on the line"},
		{`{"id": 6, "op": "call.start", "cal": "c1"}`, "6", `malformed request: json: unknown field "cal"`},
		{`{"id": 7, "op": "call.start", "paths": "a.txt"}`, "7", "malformed request: json: cannot unmarshal string into Go struct field Request.paths of type []string"},
		{`{"id": "eight"}`, `"eight"`, `request has no "op"; ops: ` + opList},
		{`{"id": {"n": 9}, "op": "frobnicate"}`, `{"n":9}`, `unknown op "frobnicate"; ops: ` + opList},
		{`{"id": 10, "op": "call.finish"}`, "10", `op call.finish needs "call"`},
		{`{"id": 11, "op": "call.approve"}`, "11", `op call.approve needs "call"`},
		{`{"id": 12, "op": "call.deny"}`, "12", `op call.deny needs "call"`},
		{`{"id": 13, "op": "call.plan", "tool": "x"}`, "13", `op call.plan needs "call"`},
		{`{"id": 14, "op": "call.start"}`, "14", `op call.start needs "call"`},
		{`{"id": 15, "op": "call.capture_before", "call": "c1"}`, "15", `op call.capture_before needs "paths"`},
		{`{"id": 16, "op": "call.capture_after", "paths": ["a.txt"]}`, "16", `op call.capture_after needs "call"`},
	}
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.line + "\n")
	}
	resps := f.serve(in.String())
	if len(resps) != len(cases) {
		t.Fatalf("%d responses to %d lines", len(resps), len(cases))
	}
	for i, c := range cases {
		r := resps[i]
		if got := string(r.ID); got != c.id && !(c.id == "null" && r.ID == nil) {
			t.Errorf("%s: id %s, want %s", c.line, got, c.id)
		}
		if r.OK || r.ExitCode != 2 || r.Hint != requestHint || r.Result != nil {
			t.Errorf("%s: %+v", c.line, r)
		}
		if r.Error != c.msg {
			t.Errorf("%s:\n got %q\nwant %q", c.line, r.Error, c.msg)
		}
	}
	if got := f.agentRefs(); got != refs {
		t.Errorf("bad requests wrote refs:\n%s", got)
	}
}

// TestLongLine: a line over the limit is answered and skipped; the next
// one is served.
func TestLongLine(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	long := `{"id": 1, "op": "version", "label": "` + strings.Repeat("x", protocol.MaxRequestLine) + `"}`
	resps := f.serve(long + "\n" + `{"id": 2, "op": "version"}` + "\n")
	if len(resps) != 2 {
		t.Fatalf("%d responses", len(resps))
	}
	if r := resps[0]; r.OK || r.ExitCode != 2 || r.Error != "request line longer than 16 MiB" || string(r.ID) != "null" {
		t.Errorf("long line: %+v", r)
	}
	if r := resps[1]; !r.OK || string(r.ID) != "2" {
		t.Errorf("line after the long one: %+v", r)
	}
}

// TestOrder: responses come one per request, in request order, whether
// they succeed or fail; empty and blank lines get none; the last line
// needs no newline.
func TestOrder(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	var in strings.Builder
	in.WriteString(`{"id": 0, "op": "run.start", "run": "r1"}` + "\n\n   \n")
	ops := []string{"status", "frobnicate", "ledger", "call.finish", "diff", "version", "resume"}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&in, `{"id": %d, "op": %q, "run": "r1", "dry_run": true}`+"\n", i, ops[i%len(ops)])
		if i%5 == 0 {
			in.WriteString("\r\n")
		}
	}
	in.WriteString(`{"id": 41, "op": "version"}`)
	resps := f.serve(in.String())
	if len(resps) != 42 {
		t.Fatalf("%d responses to 42 requests", len(resps))
	}
	for i, r := range resps {
		if string(r.ID) != fmt.Sprint(i) {
			t.Fatalf("response %d has id %s", i, r.ID)
		}
		wantOK := i == 0 || i == 41 || (ops[i%len(ops)] != "frobnicate" && ops[i%len(ops)] != "call.finish")
		if r.OK != wantOK {
			t.Errorf("response %d (%s): ok %v: %s", i, ops[i%len(ops)], r.OK, r.Error)
		}
	}
}

// TestServeReadsAfresh: Serve opens the repository for each request, so a
// call another process records between two requests is seen by the next.
func TestServeReadsAfresh(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"})
	pr, pw := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(f.ctx, f.opener, pr, outW); outW.Close() }()
	lines := bufio.NewReader(outR)
	ask := func(line string) protocol.Response {
		t.Helper()
		if _, err := io.WriteString(pw, line+"\n"); err != nil {
			t.Fatal(err)
		}
		b, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		return responses(t, b)[0]
	}
	if r := ask(`{"id": 1, "op": "run.start", "run": "r1"}`); !r.OK {
		t.Fatalf("run.start: %s", r.Error)
	}
	// Another guard (another process, as far as Serve knows) records a call.
	other := f.open()
	if _, err := other.CallStart(f.ctx, "r1", gitguard.CallOptions{CallID: "elsewhere", Tool: "t", Paths: []string{"a.txt"}}); err != nil {
		t.Fatal(err)
	}
	f.write("a.txt", "two\n")
	if _, err := other.CallFinish(f.ctx, "r1", "elsewhere", gitguard.FinishOptions{}); err != nil {
		t.Fatal(err)
	}
	r := ask(`{"id": 2, "op": "ledger", "run": "r1"}`)
	var ledger protocol.LedgerDoc
	decode(t, r.Result, &ledger)
	if len(ledger.Calls) != 1 || ledger.Calls[0].CallID != "elsewhere" {
		t.Errorf("ledger after another process's call: %+v", ledger)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Errorf("Serve at end of input: %v", err)
	}
	f.checkInvariant1("Serve")
}

// TestServeStops: Serve returns ctx's error when ctx is done while it waits
// for a request, and a read error as a read error.
func TestServeStops(t *testing.T) {
	f := newFixture(t, nil)
	ctx, cancel := context.WithCancel(f.ctx)
	pr, pw := io.Pipe()
	defer pw.Close()
	done := make(chan error, 1)
	go func() { done <- f.srv.Serve(ctx, f.opener, pr, io.Discard) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve after cancel: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return after its context was canceled")
	}

	boom := errors.New("boom")
	err := f.srv.Serve(f.ctx, f.opener, io.MultiReader(strings.NewReader(`{"id": 1, "op": "version"}`+"\n"), errReader{boom}), io.Discard)
	if !errors.Is(err, boom) {
		t.Errorf("Serve on a failing reader: %v", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// TestNoRepository: outside a repository every op but version is answered
// with the error of opening it, and the server goes on.
func TestNoRepository(t *testing.T) {
	dir := t.TempDir()
	srv := &protocol.Server{Gitguard: "test"}
	open := func(ctx context.Context) (*gitguard.Guard, error) { return gitguard.Open(ctx, dir, gitguard.Options{}) }
	var out bytes.Buffer
	in := `{"id": 1, "op": "status"}` + "\n" + `{"id": 2, "op": "version"}` + "\n"
	if err := srv.Serve(context.Background(), open, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	resps := responses(t, out.Bytes())
	if len(resps) != 2 || resps[0].OK || !strings.Contains(resps[0].Error, "not a git repository") || !resps[1].OK {
		t.Errorf("responses outside a repository: %+v", resps)
	}
	// Handle without a guard: version works, the rest fail without panicking.
	if r := protocol.Handle(context.Background(), nil, protocol.Request{Op: "version"}); !r.OK {
		t.Errorf("version without a guard: %+v", r)
	}
	if r := protocol.Handle(context.Background(), nil, protocol.Request{Op: "status"}); r.OK || r.ExitCode != 5 {
		t.Errorf("status without a guard: %+v", r)
	}
}

// TestOddIDs: any JSON value is an id and comes back as sent, as valid
// UTF-8 JSON (invalid bytes replaced as in every other string); a line the
// decoder cannot take (nesting too deep) is answered and the server goes on.
func TestOddIDs(t *testing.T) {
	in := "{\"id\": \"\xff\", \"op\": \"version\"}\n" +
		"{\"id\": \"\u2028<&>\", \"op\": \"version\"}\n" +
		`{"id": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `, "op": "version"}` + "\n" +
		"{\"id\": \"\xfe\", \"op\": \"nope\"}\n" +
		"{\"id\": \"\xfd\", \"op\": \"version\"} 2\n" +
		`{"id": -0.5e3, "op": "version"}` + "\n"
	var out bytes.Buffer
	if err := (&protocol.Server{}).Serve(context.Background(), nil, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(out.Bytes()) {
		t.Errorf("responses are not valid UTF-8: %q", out.String())
	}
	resps := responses(t, out.Bytes())
	want := []struct {
		id string
		ok bool
	}{{`"\ufffd"`, true}, {`"\u2028\u003c\u0026\u003e"`, true}, {"null", false}, {`"\ufffd"`, false}, {`"\ufffd"`, false}, {"-0.5e3", true}}
	if len(resps) != len(want) {
		t.Fatalf("%d responses to %d lines", len(resps), len(want))
	}
	for i, w := range want {
		var got, wantID any
		json.Unmarshal(resps[i].ID, &got)
		json.Unmarshal([]byte(w.id), &wantID)
		if got != wantID || resps[i].OK != w.ok {
			t.Errorf("line %d: id %s ok %v, want id %s ok %v (%s)", i+1, resps[i].ID, resps[i].OK, w.id, w.ok, resps[i].Error)
		}
	}
}
