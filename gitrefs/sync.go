package gitrefs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/record"
)

// ErrBadRemote is returned for a remote argument gitguard will not pass to
// git (empty, or starting with '-', which git would read as an option).
var ErrBadRemote = errors.New("invalid remote")

// ErrRemote is returned when git could not talk to the remote: unknown
// remote name, unreachable URL, authentication refused.
var ErrRemote = errors.New("cannot reach the remote")

// quarantinePrefix holds refs fetched from a remote and not yet verified.
// It lies inside Namespace, so nothing outside gitguard's refs is written
// even transiently, and outside runs/, so no reader mistakes them for runs.
const quarantinePrefix = Namespace + "quarantine/"

// PushStatus is what happened to one ref in a push.
type PushStatus string

// Push statuses, from git push --porcelain's flags.
const (
	PushNew      PushStatus = "new"
	PushUpdated  PushStatus = "updated"
	PushForced   PushStatus = "forced"
	PushUpToDate PushStatus = "up-to-date"
	// PushRejected: the remote's run is not an ancestor of the local one
	// (it moved on, or both did): git refused to move it.
	PushRejected PushStatus = "rejected"
	// PushDeclined: the remote refused the ref by its own rule (a hook,
	// receive.denyXxx, a host's ref policy) whatever its value.
	PushDeclined PushStatus = "declined"
	PushDeleted  PushStatus = "deleted"
)

// PushResult is one ref of a push.
type PushResult struct {
	Ref     string // local and remote name, e.g. refs/agent-checkpoints/runs/x
	Status  PushStatus
	Summary string // git's summary, e.g. "[rejected] (non-fast-forward)"
	// Local is the tip pushed; RemoteTip the remote's tip before the push
	// (zero when the remote had no such run).
	Local, RemoteTip record.Hash
	// Message is what the remote said when it declined the push (its
	// "remote:" lines), naming its rule.
	Message string
}

// DefaultPushBatch is the number of run refs one git push sends when
// neither PushOptions.Batch nor gitguard.pushBatch says otherwise: hosts
// that limit the refs of one push allow at least this many.
const DefaultPushBatch = 100

// MaxPushBatch bounds PushOptions.Batch.
const MaxPushBatch = 100000

// PushOptions tunes Push.
type PushOptions struct {
	// Force overwrites remote run refs that are not ancestors of the local
	// ones, but only if each is still at the tip Push read from the remote
	// (git push --force-with-lease): a run pushed meanwhile is never clobbered.
	Force bool
	// DryRun asks git what it would push, sending nothing.
	DryRun bool
	// Batch is the most run refs one git push carries; 0 means
	// DefaultPushBatch. Runs beyond it go in further pushes.
	Batch int
	// Runs limits the push to these runs (each must exist); nil means every run.
	Runs []record.RunID
}

// ErrNoSuchRun is returned by Push for a run named in PushOptions.Runs that
// does not exist here, and by FetchQuarantine for a run the remote lacks.
var ErrNoSuchRun = errors.New("no such run")

// ValidateRemote checks a remote name or URL before it is given to git.
func ValidateRemote(remote string) error {
	if remote == "" || strings.HasPrefix(remote, "-") || strings.ContainsAny(remote, "\x00\n") {
		return fmt.Errorf("%w %q", ErrBadRemote, remote)
	}
	return nil
}

// Push sends local run refs (refs/agent-checkpoints/runs/*, or those of
// opts.Runs) to the same names on remote. It first lists the remote's run
// refs (git ls-remote) and skips those already up to date, then pushes the
// rest in batches of at most opts.Batch refs, each batch one git push
// naming its refs one by one. It pushes nothing else, whatever the
// configuration: no branches, no tags (even with push.followTags), no
// submodules, and it leaves remote-tracking refs alone.
//
// The remote refuses non-fast-forward updates (PushRejected) unless
// opts.Force, and may decline refs by its own rules (PushDeclined, with the
// remote's message). These are reported in the results, sorted by ref, not
// as an error; an error means git could not push at all (ErrRemote,
// ErrBadRemote) or a named run does not exist (ErrNoSuchRun). It writes no
// local ref.
func (s *Store) Push(ctx context.Context, remote string, opts PushOptions) ([]PushResult, error) {
	if err := ValidateRemote(remote); err != nil {
		return nil, err
	}
	batch := opts.Batch
	if batch <= 0 {
		batch = DefaultPushBatch
	}
	local, err := s.localRuns(ctx, opts.Runs)
	if err != nil {
		return nil, err
	}
	if len(local) == 0 {
		return nil, nil
	}
	remoteRefs, err := s.listRemote(ctx, remote, "push to")
	if err != nil {
		return nil, err
	}
	theirs := map[string]record.Hash{}
	for _, r := range remoteRefs {
		theirs[r.Name] = r.Hash
	}
	var results, todo []PushResult
	for _, r := range local {
		res := PushResult{Ref: r.Name, Local: r.Hash, RemoteTip: theirs[r.Name]}
		if res.RemoteTip == r.Hash {
			res.Status, res.Summary = PushUpToDate, "[up to date]"
			results = append(results, res)
			continue
		}
		todo = append(todo, res)
	}
	for len(todo) > 0 {
		n := min(batch, len(todo))
		got, err := s.pushBatch(ctx, remote, todo[:n], opts)
		if err != nil {
			return nil, err
		}
		results = append(results, got...)
		todo = todo[n:]
	}
	// A run refused because the remote's copy moved on is reported with
	// the tip it moved to, which may be newer than the one listed first.
	for _, r := range results {
		if r.Status == PushRejected {
			if now, err := s.listRemote(ctx, remote, "push to"); err == nil {
				tips := map[string]record.Hash{}
				for _, t := range now {
					tips[t.Name] = t.Hash
				}
				for i := range results {
					if results[i].Status == PushRejected {
						results[i].RemoteTip = tips[results[i].Ref]
					}
				}
			}
			break
		}
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Ref < results[j].Ref })
	return results, nil
}

// localRuns returns the run refs to push: every run, or those of ids.
func (s *Store) localRuns(ctx context.Context, ids []record.RunID) ([]Ref, error) {
	all, err := s.list(ctx, runsPrefix)
	if err != nil {
		return nil, err
	}
	var runs []Ref
	for _, r := range all {
		if _, ok := ParseRunRef(r.Name); ok {
			runs = append(runs, r)
		}
	}
	if ids == nil {
		return runs, nil
	}
	byID := map[record.RunID]Ref{}
	for _, r := range runs {
		id, _ := ParseRunRef(r.Name)
		if old, dup := byID[id]; !dup || old.Name != RunRef(id) {
			byID[id] = r // the escaped name wins over an older writer's
		}
	}
	var out []Ref
	seen := map[string]bool{}
	for _, id := range ids {
		r, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("push run %s: %w", id, ErrNoSuchRun)
		}
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// pushBatch runs one git push for refs and returns their results.
func (s *Store) pushBatch(ctx context.Context, remote string, refs []PushResult, opts PushOptions) ([]PushResult, error) {
	args := []string{"push", "--porcelain", "--no-follow-tags", "--recurse-submodules=no", "--no-signed"}
	if opts.DryRun {
		args = append(args, "--dry-run")
	}
	if opts.Force {
		for _, r := range refs {
			expect := ""
			if !r.RemoteTip.IsZero() {
				expect = r.RemoteTip.String()
			}
			args = append(args, "--force-with-lease="+r.Ref+":"+expect)
		}
	}
	args = append(args, "--", remote)
	for _, r := range refs {
		if _, ok := ParseRunRef(r.Ref); !ok {
			return nil, fmt.Errorf("push %s: %w", r.Ref, ErrOutsideNamespace) // never a branch, a tag, any ref of the user's
		}
	}
	for _, r := range refs {
		// The local tip by object id, not by name: what is sent is exactly
		// what was read, even if the run moves during the push.
		args = append(args, r.Local.String()+":"+r.Ref)
	}
	out, err := s.repo.Git(ctx, args...)
	parsed := parsePorcelain(out)
	if err != nil && len(parsed) == 0 {
		return nil, remoteError("push to", remote, err)
	}
	said := remoteSaid(err)
	byRef := map[string]PushResult{}
	for _, p := range parsed {
		byRef[p.Ref] = p
	}
	res := make([]PushResult, 0, len(refs))
	for _, r := range refs {
		p, ok := byRef[r.Ref]
		if !ok {
			r.Status, r.Summary = PushDeclined, "[not reported by git push]"
			r.Message = said
			res = append(res, r)
			continue
		}
		r.Status, r.Summary = p.Status, p.Summary
		if r.Status == PushDeclined {
			r.Message = said
		}
		res = append(res, r)
	}
	return res, nil
}

// remoteSaid returns the "remote:" lines of a failed git's stderr, the
// remote's own words about why it declined, joined with "; ".
func remoteSaid(err error) string {
	var ee *git.ExitError
	if !errors.As(err, &ee) {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(ee.Stderr, "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		if m, ok := strings.CutPrefix(l, "remote:"); ok {
			if m = strings.TrimSpace(m); m != "" && len(lines) < 8 {
				lines = append(lines, m)
			}
		}
	}
	return strings.Join(lines, "; ")
}

// lostRace reports whether a ref the remote refused was refused because
// another push moved it first (its old value no longer held, or its lock
// was taken), which is not a rule of the remote's.
func lostRace(summary string) bool {
	for _, s := range []string{"failed to lock", "cannot lock ref", "failed to update ref", "incorrect old value", "stale info"} {
		if strings.Contains(summary, s) {
			return true
		}
	}
	return false
}

func parsePorcelain(out []byte) []PushResult {
	var res []PushResult
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 || line[1] != '\t' {
			continue
		}
		f := strings.SplitN(line[2:], "\t", 2)
		from, to, ok := strings.Cut(f[0], ":")
		if !ok {
			continue
		}
		r := PushResult{Ref: to}
		if to == "" {
			r.Ref = from
		}
		if len(f) == 2 {
			r.Summary = f[1]
		}
		switch line[0] {
		case '*':
			r.Status = PushNew
		case ' ':
			r.Status = PushUpdated
		case '+':
			r.Status = PushForced
		case '=':
			r.Status = PushUpToDate
		case '-':
			r.Status = PushDeleted
		default:
			r.Status = PushRejected
			if (strings.HasPrefix(r.Summary, "[remote rejected]") || strings.HasPrefix(r.Summary, "[remote failure]")) && !lostRace(r.Summary) {
				r.Status = PushDeclined
			}
		}
		res = append(res, r)
	}
	return res
}

func remoteError(op, remote string, err error) error {
	var ee *git.ExitError
	if errors.As(err, &ee) {
		msg := strings.TrimSpace(ee.Stderr)
		if i := strings.LastIndex(msg, "fatal: "); i >= 0 {
			msg = msg[i+len("fatal: "):]
		}
		if j := strings.IndexByte(msg, '\n'); j >= 0 {
			msg = msg[:j]
		}
		return fmt.Errorf("%s %s: %w: %s", op, remote, ErrRemote, msg)
	}
	return fmt.Errorf("%s %s: %w", op, remote, err)
}

// Incoming is a run ref fetched into quarantine.
type Incoming struct {
	Remote     string      // the ref's name on the remote, e.g. refs/agent-checkpoints/runs/x
	Quarantine string      // where it was fetched to
	Hash       record.Hash // the commit it points at
}

// RunID returns the run id the remote ref names, or false if it names none.
func (in Incoming) RunID() (record.RunID, bool) { return ParseRunRef(in.Remote) }

// Quarantine is one fetch's set of unverified refs.
type Quarantine struct {
	Prefix string
	Refs   []Incoming
}

// FetchQuarantine fetches every run ref of remote into a fresh quarantine
// namespace under refs/agent-checkpoints/quarantine/, where nothing reads
// them, and returns them. The caller verifies each, moves the good ones with
// Update and must call DropQuarantine. The fetch writes no other ref: no
// tags, no remote-tracking refs (the configured refspecs are ignored), no
// FETCH_HEAD, and it runs no automatic maintenance. The fetched objects are
// in the object database from then on; objects of refused runs stay
// unreachable until git gc removes them.
//
// With runs named, it fetches only those runs' refs, and returns
// ErrNoSuchRun when the remote has no such run.
func (s *Store) FetchQuarantine(ctx context.Context, remote string, runs ...record.RunID) (*Quarantine, error) {
	if err := ValidateRemote(remote); err != nil {
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	q := &Quarantine{Prefix: fmt.Sprintf("%s%d-%s/", quarantinePrefix, time.Now().Unix(), hex.EncodeToString(b[:]))}
	specs := []string{"+" + RunsPattern + ":" + q.Prefix + "*"}
	if len(runs) > 0 {
		// The remote may name a run as an older writer did: ask it.
		theirs, err := s.listRemote(ctx, remote, "fetch from")
		if err != nil {
			return nil, err
		}
		byID := map[record.RunID]string{}
		for _, r := range theirs {
			id, _ := ParseRunRef(r.Name)
			if byID[id] != RunRef(id) {
				byID[id] = r.Name
			}
		}
		specs = specs[:0]
		for _, id := range runs {
			name, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("fetch run %s from %s: %w there", id, remote, ErrNoSuchRun)
			}
			specs = append(specs, "+"+name+":"+q.Prefix+escapeCase(string(id)))
		}
	}
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance",
		"--no-recurse-submodules", "--no-prune", "--refmap=", "--no-show-forced-updates", "--", remote}
	_, err := s.repo.Git(ctx, append(args, specs...)...)
	if err != nil {
		// A fetch can fail after creating some refs.
		_ = s.DropQuarantine(context.WithoutCancel(ctx), q)
		return nil, remoteError("fetch from", remote, err)
	}
	refs, err := s.list(ctx, q.Prefix)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if name, ok := strings.CutPrefix(r.Name, q.Prefix); ok {
			q.Refs = append(q.Refs, Incoming{Remote: runsPrefix + name, Quarantine: r.Name, Hash: r.Hash})
		}
	}
	return q, nil
}

// DropQuarantine deletes the quarantine refs of q, whatever their value.
func (s *Store) DropQuarantine(ctx context.Context, q *Quarantine) error {
	refs, err := s.list(ctx, q.Prefix)
	if err != nil {
		return err
	}
	return s.deleteAll(ctx, refs)
}

func (s *Store) deleteAll(ctx context.Context, refs []Ref) error {
	if len(refs) == 0 {
		return nil
	}
	var in strings.Builder
	for _, r := range refs {
		if !strings.HasPrefix(r.Name, Namespace) {
			return fmt.Errorf("delete %s: %w", r.Name, ErrOutsideNamespace)
		}
		name, err := s.resolve(ctx, r.Name)
		if err != nil {
			return err
		}
		fmt.Fprintf(&in, "delete %s %s\n", name, r.Hash)
	}
	_, err := git.Cmd{Dir: s.repo.WorkTree, Args: []string{"update-ref", "--no-deref", "--stdin"}, Stdin: strings.NewReader(in.String())}.Run(ctx)
	return refError("delete", refs[0].Name, err)
}

// StaleQuarantine returns quarantine refs left by fetches that started
// before cutoff and never finished (a crash or kill): DropStale deletes them.
func (s *Store) StaleQuarantine(ctx context.Context, cutoff time.Time) ([]Ref, error) {
	refs, err := s.list(ctx, quarantinePrefix)
	if err != nil {
		return nil, err
	}
	var out []Ref
	for _, r := range refs {
		rest := strings.TrimPrefix(r.Name, quarantinePrefix)
		stamp, _, _ := strings.Cut(rest, "-")
		sec, err := strconv.ParseInt(stamp, 10, 64)
		if err != nil || time.Unix(sec, 0).Before(cutoff) {
			out = append(out, r)
		}
	}
	return out, nil
}

// DeleteRefs deletes refs (all under Namespace) in one transaction, each
// only if it still has its recorded value; it returns ErrRefChanged if any moved.
func (s *Store) DeleteRefs(ctx context.Context, refs []Ref) error { return s.deleteAll(ctx, refs) }

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (s *Store) IsAncestor(ctx context.Context, a, b record.Hash) (bool, error) {
	_, err := s.repo.Git(ctx, "merge-base", "--is-ancestor", a.String(), b.String())
	if err == nil {
		return true, nil
	}
	if git.ExitCode(err) == 1 {
		return false, nil
	}
	return false, fmt.Errorf("compare %s and %s: %w", a.Short(), b.Short(), err)
}

// Unreachable counts the objects reachable from tips that nothing git gc
// keeps reaches: no ref except those in without (which may still exist, for
// a dry run), no reflog, not HEAD, not the index. These are what git gc may
// delete once they are older than gc.pruneExpire.
func (s *Store) Unreachable(ctx context.Context, tips []record.Hash, without []string) (int, error) {
	if len(tips) == 0 {
		return 0, nil
	}
	var in strings.Builder
	for _, t := range tips {
		fmt.Fprintf(&in, "%s\n", t)
	}
	args := []string{"rev-list", "--objects", "--stdin", "--not"}
	for _, r := range without {
		if !strings.HasPrefix(r, Namespace) {
			return 0, fmt.Errorf("count unreachable objects: %s: %w", r, ErrOutsideNamespace)
		}
		args = append(args, "--exclude="+r)
	}
	args = append(args, "--all", "--reflog", "--indexed-objects")
	var out bytes.Buffer
	_, err := git.Cmd{Dir: s.repo.WorkTree, Args: args, Stdin: strings.NewReader(in.String()), Stdout: &out}.Run(ctx)
	if err != nil {
		return 0, fmt.Errorf("count unreachable objects: %w", err)
	}
	return bytes.Count(out.Bytes(), []byte{'\n'}), nil
}
