package workspace

import (
	"os"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
)

// TestMain seals the environment once for every test (gittest.Main), so
// that oracle tables may run their cases in parallel. A test that writes
// global git configuration seals a home of its own with gittest.Seal.
func TestMain(m *testing.M) { os.Exit(gittest.Main(m)) }
