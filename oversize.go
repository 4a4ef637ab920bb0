package gitguard

// MaxFileSize is the size limit in bytes: files larger are recorded by
// hash, size and mode only, and undo reports them unrecoverable.
func (g *Guard) MaxFileSize() int64 { return g.ws.MaxFileSize() }
