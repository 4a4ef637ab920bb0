//go:build windows

package main

import "os"

// peakRSS is not measured on Windows.
func peakRSS(*os.ProcessState) (int64, bool) { return 0, false }
