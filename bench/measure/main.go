// Command measure runs a benchmark plan for bench/run.sh: each round runs
// the plan's lines in order, "setup" lines untimed and "time" lines timed as
// whole processes (sh -c), so gitguard and its git baselines are measured
// interleaved under the same machine load. It prints, per timed case, the
// median, min and max wall time, the ratio of medians to the baseline case,
// and the peak RSS (getrusage of the waited process tree).
//
// Plan lines: NAME<TAB>setup|time<TAB>SHELL COMMAND. Lines starting with #
// are comments. The first round is a warm-up and is not reported.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

type line struct {
	name, kind, cmd string
}

// cpuTime makes the timed figure the CPU time of the process tree (-cpu).
var cpuTime bool

type sample struct {
	wall time.Duration
	rss  int64 // KiB
}

func main() {
	plan := flag.String("plan", "", "plan file")
	rounds := flag.Int("rounds", 5, "timed rounds (after one warm-up)")
	base := flag.String("base", "git status", "case the ratios are relative to")
	dir := flag.String("C", ".", "run commands in this folder")
	flag.BoolVar(&cpuTime, "cpu", false, "time the CPU the process tree used (user+system) instead of wall time: steadier on a busy machine")
	flag.Parse()
	lines, err := readPlan(*plan)
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	samples := map[string][]sample{}
	var order []string
	for r := 0; r <= *rounds; r++ {
		for _, l := range lines {
			cmd := strings.ReplaceAll(l.cmd, "$ROUND", fmt.Sprint(r))
			s, err := runOne(*dir, cmd)
			if err != nil {
				fmt.Fprintf(os.Stderr, "measure: round %d, %s (%s): %v\n", r, l.name, l.kind, err)
				os.Exit(1)
			}
			if l.kind != "time" || r == 0 {
				continue
			}
			if _, ok := samples[l.name]; !ok {
				order = append(order, l.name)
			}
			samples[l.name] = append(samples[l.name], s)
		}
		fmt.Fprintf(os.Stderr, "measure: round %d of %d done\n", r, *rounds)
	}
	baseMed := median(samples[*base])
	fmt.Printf("| case | median ms | min ms | max ms | ratio to %s | peak RSS MiB |\n", *base)
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, name := range order {
		ss := samples[name]
		walls := make([]time.Duration, len(ss))
		var rss int64
		for i, s := range ss {
			walls[i] = s.wall
			rss = max(rss, s.rss)
		}
		slices.Sort(walls)
		med := median(ss)
		ratio := "-"
		if baseMed > 0 {
			ratio = fmt.Sprintf("%.2f", float64(med)/float64(baseMed))
		}
		fmt.Printf("| %s | %.1f | %.1f | %.1f | %s | %.1f |\n", name, ms(med), ms(walls[0]), ms(walls[len(walls)-1]),
			ratio, float64(rss)/1024)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func median(ss []sample) time.Duration {
	if len(ss) == 0 {
		return 0
	}
	w := make([]time.Duration, len(ss))
	for i, s := range ss {
		w[i] = s.wall
	}
	slices.Sort(w)
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

func runOne(dir, command string) (sample, error) {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdout = nil
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%w: %s", err, stderr.String())
	}
	if cpuTime {
		wall = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return sample{wall: wall, rss: maxRSS(cmd.ProcessState)}, nil
}

func readPlan(name string) ([]line, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		t := sc.Text()
		if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.SplitN(t, "\t", 3)
		if len(f) != 3 || (f[1] != "setup" && f[1] != "time") {
			return nil, fmt.Errorf("bad plan line %q", t)
		}
		out = append(out, line{f[0], f[1], f[2]})
	}
	return out, sc.Err()
}
