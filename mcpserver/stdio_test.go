package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/mcpserver"
)

// TestStdioAnswersBeforeEOF sends requests and closes the input at once,
// as a client that writes its last requests and hangs up does: every
// request read must be answered before the session ends, however the
// input's end races the tool calls. Lines that are no messages are
// answered with JSON-RPC errors between them.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	f := newFixture(t)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const calls = 6
	for i := 1; i <= calls; i++ {
		tool := []string{"status", "ledger", "diff"}[i%3]
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`+"\n", i, tool)
		if i == 3 {
			in.WriteString("not json\n\n[]\n")
		}
	}
	for round := 0; round < 10; round++ {
		srv := mcpserver.New(mcpserver.Options{Open: func(ctx context.Context) (*gitguard.Guard, error) { return open(ctx, f.repo.Dir) }})
		var out bytes.Buffer
		if err := srv.Run(context.Background(), mcpserver.Stdio(strings.NewReader(in.String()), &out)); err != nil {
			t.Fatalf("round %d: Run: %v", round, err)
		}
		answered := map[string]bool{}
		var parseErrors, invalid int
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m struct {
				ID     json.RawMessage     `json:"id"`
				Result json.RawMessage     `json:"result"`
				Error  *struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("round %d: output line %q: %v", round, line, err)
			}
			switch {
			case m.Error != nil && m.Error.Code == -32700:
				parseErrors++
			case m.Error != nil && m.Error.Code == -32600:
				invalid++
			case m.Result != nil:
				answered[string(m.ID)] = true
			default:
				t.Errorf("round %d: unexpected line %s", round, line)
			}
		}
		for i := 0; i <= calls; i++ {
			if !answered[fmt.Sprint(i)] {
				t.Errorf("round %d: request %d not answered; output:\n%s", round, i, out.String())
			}
		}
		if parseErrors != 1 || invalid != 1 {
			t.Errorf("round %d: %d parse errors and %d invalid requests, want 1 and 1", round, parseErrors, invalid)
		}
	}
}
