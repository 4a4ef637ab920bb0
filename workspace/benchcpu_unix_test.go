//go:build unix

package workspace

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the CPU time (user and system) of the benchmark's
// process: on a shared machine it moves far less with the load than the
// wall time does.
type cpuClock struct{ user, sys time.Duration }

func cpuNow() cpuClock {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuClock{}
	}
	return cpuClock{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}

func startCPU() cpuClock { return cpuNow() }

// report adds user-ms/op and sys-ms/op to the benchmark's results.
func (c cpuClock) report(b *testing.B) {
	now := cpuNow()
	n := float64(b.N)
	b.ReportMetric(float64(now.user-c.user)/1e6/n, "user-ms/op")
	b.ReportMetric(float64(now.sys-c.sys)/1e6/n, "sys-ms/op")
}
