package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gitguard/gitguard/internal/atomicfile"
)

// ErrPairingBusy is returned when the pairing state stays locked by
// another hook for longer than it takes any hook to update it.
var ErrPairingBusy = errors.New("pairing state is locked by another hook")

// Pairing gives call ids to an agent that sends none with its tool events
// (Gemini CLI): the before event of a tool use opens an id, built from
// Prefix and a counter, and the after event with the same key (tool and
// input) closes the oldest id open under that key. Tool uses may
// interleave; two open at once with the same key are the same tool on the
// same input, so which id each gets does not matter.
//
// The state is one small JSON file per run in Dir (under the work tree's
// private state folder, never in the work tree), updated under a lock file
// so concurrent hooks of one session do not lose each other's updates.
type Pairing struct {
	Dir    string
	Run    string
	Prefix string
	// Taken reports ids already recorded in the run, so a lost state file
	// never hands out an id twice. Nil means none is.
	Taken func(id string) bool
}

type pairState struct {
	Version int        `json:"version"`
	Next    int        `json:"next"` // the counter of the newest id handed out
	Open    []pairOpen `json:"open,omitempty"`
}

type pairOpen struct {
	Key string `json:"key"`
	ID  string `json:"id"`
}

const pairStateVersion = 1

// maxPairFile bounds the pairing state read back: a few open pairs.
const maxPairFile = 16 << 20

func (p *Pairing) file() string {
	return filepath.Join(p.Dir, "pairs-"+p.Run+".json")
}

// Begin opens a new id for key and returns it.
func (p *Pairing) Begin(key string) (string, error) {
	var id string
	err := p.update(func(st *pairState) {
		id = p.fresh(st)
		st.Open = append(st.Open, pairOpen{Key: key, ID: id})
	})
	return id, err
}

// End closes the oldest id open under key and returns it; with none open
// it hands out a fresh id (the after event of a tool use whose before
// event was never seen).
func (p *Pairing) End(key string) (string, error) {
	var id string
	err := p.update(func(st *pairState) {
		for i, o := range st.Open {
			if o.Key == key {
				id = o.ID
				st.Open = append(st.Open[:i:i], st.Open[i+1:]...)
				return
			}
		}
		id = p.fresh(st)
	})
	return id, err
}

// Drain returns the ids still open and removes the state: the session is
// over.
func (p *Pairing) Drain() ([]string, error) {
	var ids []string
	err := p.locked(func() error {
		st, err := p.load()
		if err != nil {
			return err
		}
		for _, o := range st.Open {
			ids = append(ids, o.ID)
		}
		if err := os.Remove(p.file()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	return ids, err
}

func (p *Pairing) fresh(st *pairState) string {
	for {
		st.Next++
		id := fmt.Sprintf("%s%d", p.Prefix, st.Next)
		if p.Taken == nil || !p.Taken(id) {
			return id
		}
	}
}

func (p *Pairing) update(fn func(*pairState)) error {
	return p.locked(func() error {
		st, err := p.load()
		if err != nil {
			return err
		}
		fn(st)
		data, err := json.Marshal(st)
		if err != nil {
			return err
		}
		// Not flushed: a state lost to a power cut costs what a damaged
		// one does (see load), and Taken keeps ids unique either way.
		return atomicfile.WriteFileUnsynced(p.file(), data, 0o600)
	})
}

func (p *Pairing) load() (*pairState, error) {
	st := &pairState{Version: pairStateVersion}
	data, err := atomicfile.ReadFile(p.file(), maxPairFile)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if errors.Is(err, atomicfile.ErrNotRegular) || errors.Is(err, atomicfile.ErrTooLarge) {
		data = nil // damaged: see below
	} else if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, st); err != nil || st.Version != pairStateVersion || st.Next < 0 {
		// A damaged state loses the open pairs (their after events are
		// then recorded without a patch, with a warning); Taken keeps new
		// ids unique.
		return &pairState{Version: pairStateVersion}, nil
	}
	return st, nil
}

// lockStale is how old a lock file must be before it is taken to be left
// by a hook that died: every update takes milliseconds.
const lockStale = 30 * time.Second

func (p *Pairing) locked(fn func() error) error {
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return err
	}
	lock := p.file() + ".lock"
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > lockStale {
			_ = os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %w", lock, ErrPairingBusy)
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer os.Remove(lock)
	return fn()
}
