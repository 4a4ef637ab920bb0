package git

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/atomicfile"
)

// Open finds the repository containing dir and reads its configuration,
// like DiscoverWithConfig, but without starting git in the common case,
// which every short command pays twice otherwise (about 16 ms on a small
// machine).
//
// The repository is found the way git's setup does for a plain layout: the
// nearest .git folder or gitfile above dir on the same file system, owned
// by the current user. The configuration is git's own `git config --list`
// output, kept in the worktree's state folder with the identity (size,
// times, inode) of every file git reads it from, present or absent, and
// of the git binary; it is reused while none of them changed. Anything
// else goes to git: environment variables that change discovery or
// configuration (getenv reports them), include directives, core.worktree,
// a bare repository, or any doubt. getenv nil means always ask git.
func Open(ctx context.Context, dir string, getenv func(string) string) (*Repo, Config, error) {
	if getenv == nil || steeredByEnv(getenv) {
		return DiscoverWithConfig(ctx, dir)
	}
	fromEnv, ok := envConfig(getenv)
	if !ok {
		return DiscoverWithConfig(ctx, dir)
	}
	repo, ok := findRepo(dir)
	if !ok {
		return DiscoverWithConfig(ctx, dir)
	}
	cache := configCachePath(repo)
	files := configFiles(repo, getenv)
	if cfg, ok := readConfigCache(cache, files); ok {
		if cfg = withEntries(cfg, fromEnv); plainLayout(cfg, repo) {
			return repo, cfg, nil
		}
	}
	// The files' configuration alone, which is what is cached; the
	// environment's entries come last, as git reads them.
	out, err := Cmd{Dir: repo.WorkTree, Args: []string{"config", "--list", "-z", "--show-origin"},
		Env: []string{"GIT_CONFIG_COUNT=0"}}.Run(ctx)
	if err != nil {
		return DiscoverWithConfig(ctx, dir)
	}
	cfg, origins, cacheable := parseOriginList(out)
	cfg = withEntries(cfg, fromEnv)
	if !plainLayout(cfg, repo) {
		// Another layout (core.worktree elsewhere): git says where the
		// work tree is; the configuration, read from the same git dir, stands.
		repo, err := Discover(ctx, dir)
		return repo, cfg, err
	}
	if cacheable {
		writeConfigCache(cache, append(files, origins...), out)
	}
	return repo, cfg, nil
}

// FindRepo finds the repository containing dir as Open does, without
// reading its configuration or starting git: for a caller that only needs
// to know where the repository is (the watch daemon's socket, say) and can
// do without when it is in doubt. ok is false whenever Open would ask git.
func FindRepo(dir string, getenv func(string) string) (repo *Repo, ok bool) {
	if getenv == nil || steeredByEnv(getenv) {
		return nil, false
	}
	if _, ok := envConfig(getenv); !ok {
		return nil, false
	}
	return findRepo(dir)
}

// Binary returns the file name of the git that PATH finds, "" for none.
func Binary() string {
	p, _ := lookGit()
	return p
}

// discoveryEnv are the variables that make git find or configure a
// repository otherwise than by looking up from the current folder. Not
// GIT_CONFIG_COUNT: Open adds the entries it gives (envConfig), which
// agents set for their tools (Copilot CLI sets safe.bareRepository).
var discoveryEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES",
	"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX"}

// maxEnvConfig bounds the entries envConfig reads; past it git is asked.
const maxEnvConfig = 1000

// envConfig returns the configuration entries the environment gives git
// with GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n>, in
// order ("key\nvalue", as git config --list -z spells them): git reads
// them after every file. ok is false where git would refuse them (a count
// that is not a number, a key missing or not a valid key, a value missing)
// and for an include directive, which git may follow to another file: then
// git is asked.
func envConfig(getenv func(string) string) (entries [][]byte, ok bool) {
	count := getenv("GIT_CONFIG_COUNT")
	if count == "" {
		return nil, true
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 || n > maxEnvConfig {
		return nil, false
	}
	for i := range n {
		key := getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
		value, set := lookupEnv(getenv, "GIT_CONFIG_VALUE_"+strconv.Itoa(i))
		if !validConfigKey(key) || !set || includes(key) {
			return nil, false
		}
		entries = append(entries, []byte(key+"\n"+value))
	}
	return entries, true
}

// lookupEnv tells an empty variable from an unset one where getenv is the
// process's own; any other getenv (a test's) sets what it returns.
func lookupEnv(getenv func(string) string, key string) (string, bool) {
	v := getenv(key)
	if v != "" {
		return v, true
	}
	_, set := os.LookupEnv(key)
	return v, set
}

// validConfigKey reports whether git takes key as a configuration key, as
// its config.c parses one: section.name or section.subsection.name, the
// section of letters, digits and dashes, the name starting with a letter,
// the subsection anything but a newline.
func validConfigKey(key string) bool {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 || strings.ContainsAny(key, "\n\x00") {
		return false
	}
	for _, c := range key[:first] {
		if !isKeyChar(c) {
			return false
		}
	}
	name := key[last+1:]
	if c := name[0] | 0x20; c < 'a' || c > 'z' {
		return false
	}
	for _, c := range name {
		if !isKeyChar(c) {
			return false
		}
	}
	return true
}

// includes reports whether key is an include directive (include.path,
// includeIf.<condition>.path).
func includes(key string) bool {
	k := strings.ToLower(key)
	return k == "include.path" || (strings.HasPrefix(k, "includeif.") && strings.HasSuffix(k, ".path"))
}

func isKeyChar(c rune) bool {
	return c == '-' || ('0' <= c && c <= '9') || ('a' <= c|0x20 && c|0x20 <= 'z')
}

// withEntries returns cfg with entries added after its own, in a new map:
// a cached configuration is not changed.
func withEntries(cfg Config, entries [][]byte) Config {
	if len(entries) == 0 {
		return cfg
	}
	out := make(Config, len(cfg)+len(entries))
	for k, v := range cfg {
		out[k] = v[:len(v):len(v)]
	}
	for _, e := range entries {
		out.add(e)
	}
	return out
}

func steeredByEnv(getenv func(string) string) bool {
	for _, v := range discoveryEnv {
		if getenv(v) != "" {
			return true
		}
	}
	return false
}

// plainLayout reports whether the configuration keeps the layout findRepo
// assumed: not bare, and core.worktree unset or naming the folder that
// holds the gitfile (as git sets it for submodules).
func plainLayout(cfg Config, r *Repo) bool {
	if wt, set := cfg.Get("core.worktree"); set {
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(r.GitDir, wt)
		}
		resolved, err := filepath.EvalSymlinks(wt)
		if err != nil || resolved != r.WorkTree {
			return false
		}
	}
	return !cfg.Bool("core.bare", false)
}

// findRepo looks for .git from dir upwards, as git does without any
// GIT_* variable: a folder that looks like a git dir, or a gitfile naming
// one (linked worktrees, submodules). It gives up (ok false) on anything
// git might see differently: a change of file system on the way up, an
// owner other than the current user, dir inside a git dir.
func findRepo(dir string) (*Repo, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, false
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return nil, false
	}
	dev, _, ok := statOwner(abs)
	if !ok {
		return nil, false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if ddev, _, ok := statOwner(d); !ok || ddev != dev {
			return nil, false
		}
		if isGitDir(d) || filepath.Base(d) == ".git" {
			return nil, false // inside a git dir: git says what that means
		}
		dotgit := filepath.Join(d, ".git")
		if fi, uid, ok := lstatOwner(dotgit); ok {
			if uid != os.Geteuid() {
				return nil, false // git's safe.directory rules decide
			}
			gitDir := ""
			switch {
			case fi.IsDir():
				gitDir = dotgit
			case fi.Mode().IsRegular():
				gitDir = readGitfile(d, dotgit)
			}
			if gitDir == "" || !isGitDir(gitDir) || !ownedByMe(d) || !ownedByMe(gitDir) {
				return nil, false
			}
			common := gitDir
			if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
				c := strings.TrimSpace(string(data))
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				if common, err = filepath.EvalSymlinks(c); err != nil {
					return nil, false
				}
			}
			if !ownedByMe(common) {
				return nil, false
			}
			return &Repo{WorkTree: d, GitDir: gitDir, CommonDir: common}, true
		}
		if d == filepath.Dir(d) {
			return nil, false // not a repository: git words the error
		}
	}
}

func ownedByMe(path string) bool {
	_, uid, ok := statOwner(path)
	return ok && uid == os.Geteuid()
}

// readGitfile returns the real path of the git dir a gitfile names, or "".
func readGitfile(top, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	p, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !ok || p == "" || strings.ContainsAny(p, "\n\r") {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(top, p)
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return resolved
}

// isGitDir is git's is_git_directory: HEAD, and objects and refs (or a
// commondir file standing for them).
func isGitDir(d string) bool {
	if fi, err := os.Stat(filepath.Join(d, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// configFiles are the files git reads configuration from, whether they
// exist or not (one appearing must invalidate a cached configuration),
// and the git binary itself.
func configFiles(r *Repo, getenv func(string) string) []string {
	var files []string
	if gitPath, err := lookGit(); err == nil {
		files = append(files, gitPath)
		if getenv("GIT_CONFIG_NOSYSTEM") == "" {
			if sys := getenv("GIT_CONFIG_SYSTEM"); sys != "" {
				files = append(files, sys)
			} else {
				// $(prefix)/etc/gitconfig, /etc/gitconfig when the prefix is /usr.
				prefix := filepath.Dir(filepath.Dir(gitPath))
				files = append(files, "/etc/gitconfig", filepath.Join(prefix, "etc", "gitconfig"))
			}
		}
	}
	if g := getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		home := getenv("HOME")
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return append(files, filepath.Join(r.CommonDir, "config"), filepath.Join(r.GitDir, "config.worktree"))
}

// parseOriginList reads `git config --list -z --show-origin`: the
// configuration, the files it came from, and whether it may be cached
// (every entry from a file, no include directive).
func parseOriginList(out []byte) (cfg Config, origins []string, cacheable bool) {
	cfg = Config{}
	cacheable = true
	seen := map[string]bool{}
	items := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(items); i += 2 {
		origin, item := string(items[i]), items[i+1]
		if file, ok := strings.CutPrefix(origin, "file:"); ok {
			if !seen[file] {
				seen[file] = true
				origins = append(origins, file)
			}
		} else {
			cacheable = false // command line, blob, stdin
		}
		key := cfg.add(item)
		if key == "include.path" || (strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path")) {
			cacheable = false // conditions (onbranch:, gitdir:) may change without any file changing
		}
	}
	return cfg, origins, cacheable
}

// FileID is what tells a file changed: git replaces config files and refs
// by rename (a new inode), editors may rewrite them in place (times, size).
// Identify takes it; a FileID that is not Racy tells the file unchanged for
// as long as Identify gives the same.
type FileID struct {
	Path  string `json:"path"`
	Exist bool   `json:"exist"`
	Size  int64  `json:"size,omitempty"`
	Mtime int64  `json:"mtime,omitempty"`
	Ctime int64  `json:"ctime,omitempty"`
	Ino   uint64 `json:"ino,omitempty"`
}

type configCache struct {
	Version int      `json:"version"`
	Files   []FileID `json:"files"`
	List    []byte   `json:"list"` // git config --list -z --show-origin
}

const configCacheVersion = 1

// maxConfigCache bounds the configuration cache read back.
const maxConfigCache = 16 << 20

func configCachePath(r *Repo) string { return filepath.Join(r.GitDir, "gitguard", "config-cache") }

// readConfigCache returns the cached configuration if it was cached for
// exactly these files and none of them changed since.
func readConfigCache(path string, files []string) (Config, bool) {
	// Only a regular file (see atomicfile.ReadFile): a fifo planted there
	// would block every command, a symlink to /dev/zero make it read
	// forever.
	data, err := atomicfile.ReadFile(path, maxConfigCache)
	if err != nil {
		return nil, false
	}
	var c configCache
	if json.Unmarshal(data, &c) != nil || c.Version != configCacheVersion {
		return nil, false
	}
	listed := map[string]bool{}
	for _, f := range c.Files {
		if Identify(f.Path) != f {
			return nil, false
		}
		listed[f.Path] = true
	}
	for _, f := range files {
		if !listed[f] {
			return nil, false // cached under another environment
		}
	}
	cfg, _, cacheable := parseOriginList(c.List)
	return cfg, cacheable
}

// racyWindow: a file changed this recently may change again within the
// same timestamp; it is not trusted for the cache, as git treats a racily
// clean index entry. A file system that keeps times to the second or
// coarser (FAT keeps two) needs the whole of it; one whose times carry a
// fraction of a second (ext4, XFS, btrfs, APFS, NTFS) moves them at least
// every clock tick (10 ms at the coarsest Linux tick), so fineRacyWindow
// is ample there. A session that starts right after `gitguard init` or a
// `git config` then finds the cache written at its first event rather
// than starting git for every event of its first two seconds.
var racyWindow, fineRacyWindow = 2 * time.Second, 100 * time.Millisecond

// Racy reports whether the file id describes may still change within the
// timestamps it has (at now): what was read of it is not to be remembered.
func (id FileID) Racy(now time.Time) bool {
	if !id.Exist {
		return false
	}
	window := racyWindow
	if id.Mtime%int64(time.Second) != 0 && id.Ctime%int64(time.Second) != 0 {
		window = min(window, fineRacyWindow)
	}
	return now.Sub(time.Unix(0, max(id.Mtime, id.Ctime))) < window
}

func writeConfigCache(path string, files []string, list []byte) {
	c := configCache{Version: configCacheVersion, List: list}
	seen := map[string]bool{}
	now := time.Now()
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		id := Identify(f)
		if id.Racy(now) {
			return
		}
		c.Files = append(c.Files, id)
	}
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "config-cache-*")
	if err != nil {
		return
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return
	}
	if tmp.Close() != nil {
		return
	}
	_ = os.Rename(tmp.Name(), path) // a cache: losing it costs one git process
}
