package workspace

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// watchable says whether the work tree at dir can be watched: with
// inotify, unless it is on a file system whose changes may come from
// another machine, which raise no event here.
func watchable(dir string) error {
	if name, remote := remoteFS(dir); remote {
		return fmt.Errorf("it is on a %s file system, whose changes inotify does not see", name)
	}
	return nil
}

// remoteFileSystems are the file systems whose changes may come from
// elsewhere (statfs f_type), as git's fsmonitor refuses them too.
var remoteFileSystems = map[int64]string{
	0x6969:     "NFS",
	0x517b:     "SMB",
	0xff534d42: "CIFS",
	0xfe534d42: "SMB2",
	0x01021997: "9P",
	0x65735546: "FUSE",
	0x5346414f: "AFS",
	0x00c36400: "Ceph",
	0x73757245: "Coda",
}

func remoteFS(dir string) (string, bool) {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return "", false
	}
	name, ok := remoteFileSystems[int64(st.Type)]
	return name, ok
}
