package git

import (
	"os"
	"os/exec"
	"sync"
)

// gitOnPath remembers where PATH finds git. A watch daemon looks for every
// event (the configuration cache, the attributes files, the environment
// key), and each look tries every folder of PATH before git's.
var gitOnPath struct {
	sync.Mutex
	key, path string
}

// lookGit is exec.LookPath("git"), answered from memory while PATH is the
// same and the file found is still there. A git installed meanwhile in a
// folder PATH names earlier is found by the next process, not this one.
func lookGit() (string, error) {
	key := os.Getenv("PATH") + "\x00" + os.Getenv("PATHEXT")
	gitOnPath.Lock()
	defer gitOnPath.Unlock()
	if gitOnPath.path != "" && gitOnPath.key == key {
		if fi, err := os.Stat(gitOnPath.path); err == nil && fi.Mode().IsRegular() {
			return gitOnPath.path, nil
		}
	}
	p, err := exec.LookPath("git")
	if err != nil {
		gitOnPath.path = ""
		return "", err
	}
	gitOnPath.key, gitOnPath.path = key, p
	return p, nil
}
