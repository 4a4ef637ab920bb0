package main

import (
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gitguard/gitguard/internal/gittest"
)

// cmdGitServer implements "gitserver http|daemon ROOT VAR": it serves the
// repositories under ROOT on 127.0.0.1 with a real git server — smart HTTP
// (git http-backend, pushes enabled) or git daemon (receive-pack enabled) —
// sets VAR to its base URL (a repository ROOT/x.git is $VAR/x.git), and
// stops it when the script ends.
func cmdGitServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: gitserver http|daemon ROOT VAR")
	}
	env := gittest.Env(ts.Getenv("HOME"))
	var (
		srv *gittest.Server
		err error
	)
	switch args[0] {
	case "http":
		srv, err = gittest.StartHTTP(ts.MkAbs(args[1]), env)
	case "daemon":
		srv, err = gittest.StartDaemon(ts.MkAbs(args[1]), env)
	default:
		ts.Fatalf("usage: gitserver http|daemon ROOT VAR")
	}
	ts.Check(err)
	ts.Defer(func() { ts.Check(srv.Close()) })
	ts.Setenv(args[2], srv.URL)
}
