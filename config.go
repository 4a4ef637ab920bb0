package gitguard

import (
	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/workspace"
)

// applyConfig adds the settings of .gitguard.toml to the workspace options
// given in code. Exclude globs add up; a size limit set in code wins.
func applyConfig(o workspace.Options, c *config.Config) workspace.Options {
	if len(c.Exclude) > 0 {
		o.Exclude = append(append([]string{}, o.Exclude...), c.Exclude...)
	}
	if o.MaxFileSize == 0 && c.MaxFileSize != 0 {
		o.MaxFileSize = c.MaxFileSize
	}
	return o
}
