//go:build !unix

package workspace

import "testing"

type cpuClock struct{}

func startCPU() cpuClock           { return cpuClock{} }
func (cpuClock) report(*testing.B) {}
