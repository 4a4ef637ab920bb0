package gittest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Server is a real git server on 127.0.0.1 serving every repository under
// a folder: `git http-backend` behind Go's net/http/cgi (smart HTTP), or
// `git daemon` (git://). Both accept pushes (receive-pack), run the
// repositories' hooks, and stop with Close.
type Server struct {
	// URL is the base address: a repository root/x.git is URL + "/x.git".
	URL  string
	stop func() error
}

// Close stops the server. It is safe to call more than once.
func (s *Server) Close() error {
	if s.stop == nil {
		return nil
	}
	err := s.stop()
	s.stop = nil
	return err
}

// serverEnv is what the server's git processes see: the sealed environment
// of env (HOME, GIT_CONFIG_GLOBAL, ...), PATH (hooks run sh), and pushes
// allowed over HTTP.
func serverEnv(env []string) []string {
	out := append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	return append(out,
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.receivepack", "GIT_CONFIG_VALUE_0=true")
}

// StartHTTP serves the repositories under root over smart HTTP at
// http://127.0.0.1:PORT/git, with git http-backend as a CGI program run by
// this process. env is the environment the backend runs in (Env(home)).
func StartHTTP(root string, env []string) (*Server, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	h := &cgi.Handler{
		Path: gitPath,
		Args: []string{"http-backend"},
		Root: "/git",
		Dir:  abs,
		Env:  append(serverEnv(env), "GIT_PROJECT_ROOT="+abs, "GIT_HTTP_EXPORT_ALL=1"),
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: dechunk(h), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return &Server{
		URL: "http://" + ln.Addr().String() + "/git",
		stop: func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := srv.Shutdown(ctx)
			<-done
			return err
		},
	}, nil
}

// maxRequestBody bounds a chunked request body dechunk holds.
const maxRequestBody = 1 << 30

// dechunk gives h every request with a length: git sends packs larger than
// http.postBuffer chunked, and net/http/cgi refuses chunked bodies (CGI
// passes the length in CONTENT_LENGTH). The body is spooled to a temporary
// file first.
func dechunk(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength >= 0 {
			h.ServeHTTP(w, r)
			return
		}
		f, err := os.CreateTemp("", "git-http-body-*")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer os.Remove(f.Name())
		defer f.Close()
		n, err := io.Copy(f, io.LimitReader(r.Body, maxRequestBody+1))
		if err == nil && n > maxRequestBody {
			err = errors.New("request body too large")
		}
		if err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength, r.TransferEncoding = f, n, nil
		r.Header.Set("Content-Length", strconv.FormatInt(n, 10))
		h.ServeHTTP(w, r)
	})
}

// StartDaemon runs `git daemon` serving the repositories under root at
// git://127.0.0.1:PORT, receive-pack enabled, on a free port. It waits
// (at most 10 s) until the daemon accepts connections. Close kills it.
func StartDaemon(root string, env []string) (*Server, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	// Run git-daemon itself: "git daemon" would be a wrapper process whose
	// death leaves the daemon running.
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return nil, err
	}
	daemon := filepath.Join(strings.TrimSpace(string(execPath)), "git-daemon")
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(daemon, "--reuseaddr", "--export-all", "--informative-errors",
			"--enable=receive-pack", "--init-timeout=10", "--timeout=60", "--listen=127.0.0.1", "--port="+strconv.Itoa(port),
			"--base-path="+abs, abs)
		cmd.Env = serverEnv(env)
		// A file, not a pipe: a connection's child process inherits it, and
		// Wait would wait for a pipe until the last child let go.
		logf, err := os.CreateTemp("", "git-daemon-*.log")
		if err != nil {
			return nil, err
		}
		cmd.Stderr = logf
		if err := cmd.Start(); err != nil {
			logf.Close()
			os.Remove(logf.Name())
			return nil, err
		}
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			_ = cmd.Wait()
		}()
		stop := func() error {
			_ = cmd.Process.Kill()
			defer func() {
				logf.Close()
				os.Remove(logf.Name())
			}()
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				return errors.New("git daemon did not exit")
			}
			return nil
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if err := waitListening(addr, exited); err != nil {
			log, _ := os.ReadFile(logf.Name())
			_ = stop()
			lastErr = fmt.Errorf("git daemon on %s: %w: %s", addr, err, log)
			continue
		}
		return &Server{URL: "git://" + addr, stop: stop}, nil
	}
	return nil, lastErr
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitListening polls addr until it accepts a connection, the process
// exits, or 10 s pass.
func waitListening(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("exited")
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("not listening after 10s")
}
