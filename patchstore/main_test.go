package patchstore

import (
	"os"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestMain seals the environment once for every test (gittest.Main), so
// that tests building repositories may run in parallel.
func TestMain(m *testing.M) { os.Exit(gittest.Main(m)) }
