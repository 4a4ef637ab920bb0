// Command share measures sharing runs through a smart-HTTP git server on
// 127.0.0.1 (git http-backend behind Go's net/http/cgi, with a counting
// proxy in front): push and fetch of a long run beside pushing and cloning
// the equivalent shadow repository (one commit of the whole work tree per
// call), and listing a remote's runs (gitguard runs --remote) beside git
// ls-remote. It prints a markdown table: median wall time of -r rounds and
// bytes on the wire (request and response bodies and headers).
//
//	go build -o /tmp/gitguard ./cmd/gitguard
//	go run ./bench/share -gitguard /tmp/gitguard -calls 2000 -runs 500 -r 3
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gitguard/gitguard/internal/gittest"
)

var (
	gitguardBin = flag.String("gitguard", "gitguard", "the gitguard binary")
	calls       = flag.Int("calls", 2000, "calls in the long run")
	files       = flag.Int("files", 200, "tracked files in the repository")
	runs        = flag.Int("runs", 500, "runs on the server for runs --remote")
	rounds      = flag.Int("r", 3, "timed rounds per case")
	keep        = flag.Bool("k", false, "keep the work folder")
	reuse       = flag.String("reuse", "", "a work folder kept (-k) by an earlier run: its recorded run is reused")
	fetch       = flag.Bool("fetch", true, "measure gitguard fetch of the long run (verifies every checkpoint)")
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	work, err := os.MkdirTemp("", "gitguard-share-")
	check(err)
	if *reuse != "" {
		work = *reuse
	}
	if !*keep && *reuse == "" {
		defer os.RemoveAll(work)
	} else {
		log.Printf("work folder: %s", work)
	}
	home := filepath.Join(work, "home")
	check(os.MkdirAll(home, 0o755))
	env := gittest.Env(home)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
	}
	os.Setenv("GIT_AUTHOR_DATE", "")
	os.Setenv("GIT_COMMITTER_DATE", "")
	srvRoot := filepath.Join(work, "srv")
	check(os.RemoveAll(srvRoot))
	for _, r := range []string{"runs.git", "shadow.git", "many.git"} {
		git(work, "init", "-q", "--bare", "-b", "main", filepath.Join(srvRoot, r))
	}
	git(filepath.Join(srvRoot, "many.git"), "config", "uploadpack.allowFilter", "true")
	srv, err := gittest.StartHTTP(srvRoot, env)
	check(err)
	defer srv.Close()
	proxy, counter := countingProxy(srv.URL)
	defer proxy.Close()
	base := proxy.URL + "/git"

	repo := filepath.Join(work, "repo")
	shadow := filepath.Join(work, "shadow.git")
	if *reuse == "" {
		log.Printf("recording a run of %d calls (and its shadow repository)", *calls)
		start := time.Now()
		buildRun(repo, shadow)
		log.Printf("recorded in %v", time.Since(start).Round(time.Second))
	}

	var rows []row
	measure := func(name string, setup, cmd func()) {
		var walls []time.Duration
		var bytes int64
		for i := 0; i < *rounds; i++ {
			if setup != nil {
				setup()
			}
			counter.reset()
			t0 := time.Now()
			cmd()
			walls = append(walls, time.Since(t0))
			bytes = counter.total()
		}
		sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
		rows = append(rows, row{name, walls[len(walls)/2], walls[0], walls[len(walls)-1], bytes})
		log.Printf("%s: %v", name, walls[len(walls)/2])
	}
	resetBare := func(name string) func() {
		return func() {
			dir := filepath.Join(srvRoot, name)
			check(os.RemoveAll(dir))
			git(work, "init", "-q", "--bare", "-b", "main", dir)
		}
	}
	measure(fmt.Sprintf("gitguard push (run of %d calls)", *calls), resetBare("runs.git"), func() {
		gg(repo, "push", "--run", "big", base+"/runs.git")
	})
	measure(fmt.Sprintf("git push shadow repository (%d commits)", *calls), resetBare("shadow.git"), func() {
		git(work, "--git-dir="+shadow, "push", "-q", base+"/shadow.git", "main")
	})
	fetchInto := filepath.Join(work, "fetcher")
	if *fetch {
		measure("gitguard fetch --run (verified)", func() {
			check(os.RemoveAll(fetchInto))
			git(work, "clone", "-q", "--no-local", repo, fetchInto)
		}, func() {
			gg(fetchInto, "fetch", "--run", "big", base+"/runs.git")
		})
	}
	cloneInto := filepath.Join(work, "shadow-clone.git")
	measure("git clone --bare shadow repository", func() { check(os.RemoveAll(cloneInto)) }, func() {
		git(work, "clone", "-q", "--bare", base+"/shadow.git", cloneInto)
	})

	log.Printf("recording %d runs", *runs)
	many := filepath.Join(work, "many")
	if _, err := os.Stat(many); err != nil {
		buildRuns(many, *runs)
	}
	gg(many, "push", base+"/many.git")
	measure(fmt.Sprintf("git ls-remote (%d runs)", *runs), nil, func() {
		git(work, "ls-remote", base+"/many.git", "refs/agent-checkpoints/runs/*")
	})
	measure(fmt.Sprintf("gitguard runs --remote --ids-only (%d runs)", *runs), nil, func() {
		gg(repo, "runs", "--remote", "--ids-only", base+"/many.git")
	})
	measure(fmt.Sprintf("gitguard runs --remote (%d runs, summaries)", *runs), nil, func() {
		out := gg(repo, "runs", "--remote", "--json", base+"/many.git")
		if !strings.Contains(out, `"summaries": true`) {
			log.Fatalf("runs --remote read no summaries:\n%.500s", out)
		}
	})

	fmt.Printf("| case | median | min | max | bytes on the wire |\n|---|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.name, sec(r.median), sec(r.min), sec(r.max), size(r.bytes))
	}
	du := func(p string) int64 {
		var n int64
		_ = filepath.Walk(p, func(_ string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				n += fi.Size()
			}
			return nil
		})
		return n
	}
	fmt.Printf("\nOn the server after the pushes: runs.git %s, shadow.git %s.\n",
		size(du(filepath.Join(srvRoot, "runs.git"))), size(du(filepath.Join(srvRoot, "shadow.git"))))
}

type row struct {
	name             string
	median, min, max time.Duration
	bytes            int64
}

func sec(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// buildRun records run "big": calls calls, each editing one file (a line
// appended), and beside it a shadow repository with one commit of the whole
// work tree per call, as shadow-repository checkpointing does.
func buildRun(repo, shadow string) {
	git("", "init", "-q", "-b", "main", repo)
	for i := 0; i < *files; i++ {
		p := filepath.Join(repo, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%03d.txt", i))
		check(os.MkdirAll(filepath.Dir(p), 0o755))
		check(os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("line of file %d\n", i), 40)), 0o644))
	}
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "init")
	git("", "init", "-q", "--bare", "-b", "main", shadow)
	s := serve(repo)
	s.do(map[string]any{"op": "run.start", "run": "big"})
	for i := 0; i < *calls; i++ {
		rel := fmt.Sprintf("d%02d/f%03d.txt", i%*files%20, i%*files)
		id := fmt.Sprintf("c%05d", i)
		s.do(map[string]any{"op": "call.start", "call": id, "tool": "Edit", "paths": []string{rel}})
		f, err := os.OpenFile(filepath.Join(repo, rel), os.O_APPEND|os.O_WRONLY, 0)
		check(err)
		fmt.Fprintf(f, "edit %d\n", i)
		check(f.Close())
		s.do(map[string]any{"op": "call.finish", "call": id})
		sh := []string{"--git-dir=" + shadow, "--work-tree=" + repo}
		git(repo, append(sh, "add", "-A")...)
		git(repo, append(sh, "commit", "-qm", id)...)
	}
	s.do(map[string]any{"op": "run.finish"})
	s.close()
}

// buildRuns records n short runs (start, one call, finish) in a new repository.
func buildRuns(repo string, n int) {
	git("", "init", "-q", "-b", "main", repo)
	check(os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644))
	git(repo, "add", "-A")
	git(repo, "commit", "-qm", "init")
	s := serve(repo)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("run-%04d", i)
		s.do(map[string]any{"op": "run.start", "run": id})
		s.do(map[string]any{"op": "call.start", "run": id, "call": "c1", "tool": "Bash"})
		s.do(map[string]any{"op": "call.finish", "run": id, "call": "c1"})
		s.do(map[string]any{"op": "run.finish", "run": id})
	}
	s.close()
}

type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
	n   int
}

func serve(dir string) *server {
	cmd := exec.Command(*gitguardBin, "serve", "--stdio")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &server{cmd: cmd, in: in, out: sc}
}

func (s *server) do(req map[string]any) {
	s.n++
	req["id"] = s.n
	data, err := json.Marshal(req)
	check(err)
	_, err = s.in.Write(append(data, '\n'))
	check(err)
	if !s.out.Scan() {
		log.Fatalf("gitguard serve ended: %v", s.out.Err())
	}
	var resp struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	check(json.Unmarshal(s.out.Bytes(), &resp))
	if !resp.OK {
		log.Fatalf("%s: %s", data, resp.Error)
	}
}

func (s *server) close() {
	s.in.Close()
	check(s.cmd.Wait())
}

func git(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		log.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func gg(dir string, args ...string) string {
	cmd := exec.Command(*gitguardBin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		log.Fatalf("gitguard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// counter counts the bytes through the proxy's connections, both ways.
type counter struct{ n atomic.Int64 }

func (c *counter) reset()       { c.n.Store(0) }
func (c *counter) total() int64 { return c.n.Load() }

type countingConn struct {
	net.Conn
	c *counter
}

func (cc countingConn) Read(p []byte) (int, error) {
	n, err := cc.Conn.Read(p)
	cc.c.n.Add(int64(n))
	return n, err
}

func (cc countingConn) Write(p []byte) (int, error) {
	n, err := cc.Conn.Write(p)
	cc.c.n.Add(int64(n))
	return n, err
}

type countingListener struct {
	net.Listener
	c *counter
}

func (l countingListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{conn, l.c}, nil
}

type proxyServer struct {
	URL string
	srv *http.Server
}

func (p *proxyServer) Close() { p.srv.Close() }

// countingProxy serves a reverse proxy to target's host on 127.0.0.1 and
// counts every byte its client connections carry.
func countingProxy(target string) (*proxyServer, *counter) {
	u, err := url.Parse(target)
	check(err)
	u.Path = ""
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	c := &counter{}
	srv := &http.Server{Handler: httputil.NewSingleHostReverseProxy(u), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(countingListener{ln, c}) }()
	return &proxyServer{URL: "http://" + ln.Addr().String(), srv: srv}, c
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
