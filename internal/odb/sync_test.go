package odb_test

import (
	"testing"
	"time"

	"github.com/gitguard/gitguard/internal/fault"
	"github.com/gitguard/gitguard/internal/odb"
)

// A Sync that finds nothing pending because another Sync took it waits for
// that one: a snapshot's trees, taken by one goroutine's Sync, are durable
// before a second goroutine, building on them, hears from its own Sync.
func TestSyncWaitsForTheSyncInFlight(t *testing.T) {
	_, db := open(t)
	if _, err := db.Write(odb.TypeBlob, []byte("a tree's blob\n")); err != nil {
		t.Fatal(err)
	}
	reached, release := make(chan struct{}), make(chan struct{})
	fault.Hook = func(point string) {
		if point == "objects.sync" {
			close(reached)
			<-release
		}
	}
	defer func() { fault.Hook = nil }()
	first := make(chan error)
	go func() { first <- db.Sync() }()
	<-reached // the first Sync holds the pending objects, not yet flushed
	second := make(chan error)
	go func() { second <- db.Sync() }()
	select {
	case err := <-second:
		t.Fatalf("a Sync returned (%v) while the objects it was to make durable were still being flushed", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
}
