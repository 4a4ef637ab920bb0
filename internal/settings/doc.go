// Package settings reads the settings that decide what is protected
// (exclude globs, the size limit, retention) from the places a guarded
// agent does not edit in passing, and tells when the work tree's copy of
// .gitguard.toml differs from the committed one.
//
// The settings that decide what is protected (exclude globs, the size
// limit, retention) come only from places a guarded agent does not edit
// in passing, highest precedence first:
//
//  1. flags: the options given in code (Options.Workspace; the CLI's
//     --exclude and --max-file-size);
//  2. git config: the gitguard.* keys of the repository, user or system
//     configuration (config.FromGitConfig), read once when the
//     repository is opened;
//  3. HEAD's .gitguard.toml: the committed file, read from the object
//     database, never the work tree's copy;
//  4. defaults.
//
// Exclude globs add up over all of them. A run records the settings it
// started with in its checkpoints (record.Settings) and every later call
// of the run snapshots with those, so a change of configuration, however
// made, counts only for runs started after it. A run also keeps the view
// it started with (RunView); WorkspaceOptions turns a run's settings and
// view into the options its snapshots are taken with, and Views keeps the
// workspace following the run being recorded.
//
// Invariants: the work tree's .gitguard.toml is never read for settings
// (only compared with HEAD's, for a notice); a committed symlink is not
// followed; a file larger than config.MaxFileBytes is refused unread; a
// run's snapshots leave a path out only if both its settings and today's
// do; a workspace Views replaces stays open until Views.Close.
package settings
