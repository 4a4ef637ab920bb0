package odb

import "os"

// ConsolidateBound is consolidateBound for the tests of package odb_test.
const ConsolidateBound = consolidateBound

// AwaitedMergeBytes is awaitedMergeBytes for the tests of package odb_test.
const AwaitedMergeBytes = awaitedMergeBytes

// SyncNames is syncNames for the tests of package odb_test.
var SyncNames = syncNames

// TakeSpare is takeSpare.
func (db *DB) TakeSpare(dir, prefix string) *os.File { return db.takeSpare(dir, prefix) }
