//go:build windows

package main

import "os"

// maxRSS is not measured on Windows: 0.
func maxRSS(*os.ProcessState) int64 { return 0 }
