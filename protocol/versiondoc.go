package protocol

// VersionDoc names the versions a server speaks: the result of version.
type VersionDoc struct {
	Version  int    `json:"version"`
	Protocol int    `json:"protocol"`
	Gitguard string `json:"gitguard"`
}
