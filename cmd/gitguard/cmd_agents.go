package main

import (
	"io"

	"github.com/gitguard/gitguard/agent"
	"github.com/gitguard/gitguard/agent/claudecode"
	"github.com/gitguard/gitguard/agent/codex"
	"github.com/gitguard/gitguard/agent/copilot"
	"github.com/gitguard/gitguard/agent/cursor"
	"github.com/gitguard/gitguard/agent/gemini"
	"github.com/gitguard/gitguard/agent/kilo"
	"github.com/gitguard/gitguard/agent/opencode"
	"github.com/gitguard/gitguard/agent/qwen"
)

// agentSpecs are the agent adapters the CLI offers, in the order of help.
var agentSpecs = []*agentSpec{claudeCodeSpec(), codexSpec(), geminiSpec(), opencodeSpec(), qwenSpec(), copilotSpec(), kiloSpec(), cursorSpec()}

func claudeCodeSpec() *agentSpec {
	return &agentSpec{
		name: "claude-code", title: claudecode.Name,
		hookUsage: "record a Claude Code tool use (run from Claude Code's PreToolUse/PostToolUse hooks)",
		hookDescription: "Reads one Claude Code hook event (JSON) on stdin and records it: the session is\n" +
			"run cc-<session_id>, each tool use is a call named after its tool_use_id.\n" +
			"Write, Edit, MultiEdit and NotebookEdit capture the one file they name before\n" +
			"(PreToolUse) and after (PostToolUse, PostToolUseFailure); Bash captures the\n" +
			"whole workspace, so edits made by shell commands are recorded too. Read-only\n" +
			"tools are ignored without opening the repository. SessionEnd finishes the run.\n" +
			"UserPromptSubmit, Stop and SessionStart close the calls the session left\n" +
			"started (an interrupted turn, a killed agent) as uncertain, and SessionStart\n" +
			"those of other Claude Code sessions in the work tree: what changes afterwards\n" +
			"is not theirs.\n" +
			"Set it up with 'gitguard init claude-code --write'; undo one tool use with\n" +
			"'gitguard undo --call TOOL_USE_ID'.",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return claudecode.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the Claude Code hooks that record each tool use",
		initDescription: "Prints the \"hooks\" settings that make Claude Code run 'gitguard hook claude-code'\n" +
			"before and after every Write, Edit, MultiEdit, NotebookEdit and Bash tool use\n" +
			"(PreToolUse, PostToolUse, PostToolUseFailure), at SessionEnd, and at\n" +
			"SessionStart, UserPromptSubmit and Stop, which close calls left started.\n" +
			"With --write the hooks are merged into .claude/settings.json at the top of the\n" +
			"work tree (.claude/settings.local.json with --local): other settings and other\n" +
			"hooks are kept, an event that already runs gitguard is left as it is, so running\n" +
			"it twice adds nothing. The file is replaced atomically (temp file + rename).\n" +
			"--mcp also adds the gitguard MCP server to the project's .mcp.json.",
		defaultCommand: claudecode.HookCommand,
		hasLocal:       true,
		fragment:       func(o agent.InitOptions) ([]byte, error) { return claudecode.Fragment(o.Command) },
		install:        claudecode.Init,
		next:           "Claude Code picks it up in its next session",
	}
}

func codexSpec() *agentSpec {
	return &agentSpec{
		name: "codex", title: codex.Name,
		hookUsage: "record a Codex tool use (run from Codex's PreToolUse/PostToolUse hooks)",
		hookDescription: "Reads one Codex hook event (JSON) on stdin and records it: the session is run\n" +
			"cx-<session_id>, each tool use is a call named after its tool_use_id. Bash\n" +
			"captures the whole workspace; apply_patch captures the files its patch names\n" +
			"(Add File, Update File, Delete File, Move to). Stop, sent when a turn ends,\n" +
			"finishes the run and stops the watch daemon the hook started; so does\n" +
			"SessionStart of another Codex session. A later turn continues the run.\n" +
			"Set it up with 'gitguard init codex --write'; undo one tool use with\n" +
			"'gitguard undo --call TOOL_USE_ID'.",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return codex.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the Codex hooks that record each tool use",
		initDescription: "Prints the [[hooks.EVENT]] tables that make Codex run 'gitguard hook codex'\n" +
			"before and after every Bash and apply_patch tool use (PreToolUse, PostToolUse),\n" +
			"at SessionStart and at Stop. With --write they are appended to .codex/config.toml\n" +
			"at the top of the work tree (~/.codex/config.toml with --user): the rest of the\n" +
			"file is kept byte for byte, an event that already runs gitguard is left as it\n" +
			"is, so running it twice adds nothing. --mcp also adds [mcp_servers.gitguard].\n" +
			"Codex runs hooks it has not seen before only once they are trusted: review\n" +
			"them with /hooks, or pass --dangerously-bypass-hook-trust in automation.",
		defaultCommand: codex.HookCommand,
		hasUser:        true,
		fragment:       codex.Fragment,
		install:        codex.Init,
		next: "Codex runs it in its next session once the hook is trusted (/hooks, or " +
			"--dangerously-bypass-hook-trust); project hooks load only in a trusted project",
	}
}

func geminiSpec() *agentSpec {
	return &agentSpec{
		name: "gemini", title: gemini.Name,
		hookUsage: "record a Gemini CLI tool use (run from Gemini CLI's BeforeTool/AfterTool hooks)",
		hookDescription: "Reads one Gemini CLI hook event (JSON) on stdin and records it: the session is\n" +
			"run gm-<session_id>. Gemini CLI sends no tool call id, so BeforeTool and\n" +
			"AfterTool are paired by tool and input, and each tool use gets the call id\n" +
			"gm-<session>-<n> (the pairing state lives in .git/gitguard/agents/). write_file\n" +
			"and replace capture the one file they name; run_shell_command captures the\n" +
			"whole workspace. SessionEnd finishes the run, and so does SessionStart of\n" +
			"another Gemini CLI session. Set it up with 'gitguard init gemini --write'; find\n" +
			"a tool use's id with 'gitguard ledger' and undo it with 'gitguard undo --call CALL'.",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return gemini.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the Gemini CLI hooks that record each tool use",
		initDescription: "Prints the \"hooks\" settings that make Gemini CLI run 'gitguard hook gemini'\n" +
			"before and after every write_file, replace and run_shell_command tool use\n" +
			"(BeforeTool, AfterTool) and at SessionStart and SessionEnd. With --write they\n" +
			"are merged into .gemini/settings.json at the top of the work tree\n" +
			"(~/.gemini/settings.json with --user), keeping every other setting and hook;\n" +
			"running it twice adds nothing. --mcp also adds the gitguard MCP server under\n" +
			"\"mcpServers\".",
		defaultCommand: gemini.HookCommand,
		hasUser:        true,
		fragment:       gemini.Fragment,
		install:        gemini.Init,
		next:           "Gemini CLI picks it up in its next session (it asks once before running a new project hook)",
	}
}

func opencodeSpec() *agentSpec {
	return &agentSpec{
		name: "opencode", title: opencode.Name,
		hookUsage: "record an opencode tool use (run by the plugin 'gitguard init opencode' writes)",
		hookDescription: "Reads one event of gitguard's opencode plugin (JSON) on stdin and records it:\n" +
			"the session is run oc-<sessionID>, each tool use is a call named after its\n" +
			"callID. write, edit and multiedit capture the one file they name; patch and\n" +
			"apply_patch the files their patch names; bash the whole workspace.\n" +
			"session.idle (the end of a turn) and session.deleted finish the run. Set it up\n" +
			"with 'gitguard init opencode --write'; undo one tool use with\n" +
			"'gitguard undo --call CALL' (the ids are in 'gitguard ledger').",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return opencode.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the opencode plugin that records each tool use",
		initDescription: "Prints the opencode plugin that runs 'gitguard hook opencode' on\n" +
			"tool.execute.before, tool.execute.after, session.idle and session.deleted. With\n" +
			"--write it is written to .opencode/plugin/gitguard.js at the top of the work tree\n" +
			"(an older gitguard plugin there is replaced; a file of yours is never touched).\n" +
			"--mcp also adds the gitguard MCP server under \"mcp\" in opencode.json.",
		defaultCommand: opencode.HookCommand,
		fragment:       opencode.Fragment,
		install:        opencode.Init,
		next:           "opencode loads it when it next starts",
	}
}

func qwenSpec() *agentSpec {
	return &agentSpec{
		name: "qwen", title: qwen.Name,
		hookUsage: "record a Qwen Code tool use (run from Qwen Code's PreToolUse/PostToolUse hooks)",
		hookDescription: "Reads one Qwen Code hook event (JSON) on stdin and records it: the session is run\n" +
			"qw-<session_id>, each tool use is a call named after its tool_call_id. write_file\n" +
			"and edit capture the one file they name; run_shell_command and any tool gitguard\n" +
			"does not know (an MCP server's) capture the whole workspace; read-only tools are\n" +
			"ignored without opening the repository. Stop (the end of a turn) finishes the run;\n" +
			"a later turn continues it; SessionStart of another session finishes its run.\n" +
			"Set it up with 'gitguard init qwen --write'; undo one tool use with\n" +
			"'gitguard undo --call CALL' (the ids are in 'gitguard ledger').",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return qwen.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the Qwen Code hooks that record each tool use",
		initDescription: "Prints the \"hooks\" settings that make Qwen Code run 'gitguard hook qwen' before\n" +
			"and after every tool use (PreToolUse, PostToolUse, PostToolUseFailure) and at\n" +
			"SessionStart, Stop and SessionEnd. With --write they are merged into .qwen/settings.json\n" +
			"at the top of the work tree (~/.qwen/settings.json with --user), keeping every\n" +
			"other setting and hook; running it twice adds nothing. --mcp also adds the\n" +
			"gitguard MCP server under \"mcpServers\". Qwen Code loads a project's hooks only in\n" +
			"a trusted folder (when folder trust is on).",
		defaultCommand: qwen.HookCommand,
		hasUser:        true,
		fragment:       qwen.Fragment,
		install:        qwen.Init,
		next:           "Qwen Code picks it up in its next session (in a trusted folder, when folder trust is on)",
	}
}

func cursorSpec() *agentSpec {
	return &agentSpec{
		name: "cursor", title: cursor.Name,
		hookUsage: "record a Cursor tool use (run from Cursor's preToolUse/postToolUse hooks)",
		hookDescription: "Reads one Cursor hook event (JSON) on stdin and records it: the conversation is\n" +
			"run cu-<conversation_id>, each tool use is a call named after its tool_use_id.\n" +
			"Edit tools capture the one file they name; the shell and any tool gitguard does\n" +
			"not know (an MCP server's) capture the whole workspace; read-only tools are\n" +
			"ignored without opening the repository. stop (the end of the agent loop) and\n" +
			"sessionEnd finish the run; a later turn continues it. Cursor also runs Claude\n" +
			"Code's hooks: a tool use that reaches gitguard through both is recorded once.\n" +
			"Set it up with 'gitguard init cursor --write'; undo one tool use with\n" +
			"'gitguard undo --call TOOL_USE_ID'.",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return cursor.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the Cursor hooks that record each tool use",
		initDescription: "Prints the .cursor/hooks.json that makes Cursor run 'gitguard hook cursor' before\n" +
			"and after every tool use (preToolUse, postToolUse, postToolUseFailure), at stop,\n" +
			"sessionStart and sessionEnd. With --write they are merged into .cursor/hooks.json\n" +
			"at the top of the work tree (~/.cursor/hooks.json with --user), keeping every\n" +
			"other hook; running it twice adds nothing. --mcp also adds the gitguard MCP\n" +
			"server to .cursor/mcp.json.",
		defaultCommand: cursor.HookCommand,
		hasUser:        true,
		fragment:       cursor.Fragment,
		install:        cursor.Init,
		next:           "Cursor picks it up when it next runs the agent",
	}
}

func copilotSpec() *agentSpec {
	return &agentSpec{
		name: "copilot", title: copilot.Name,
		hookUsage: "record a Copilot CLI tool use (run from Copilot CLI's PreToolUse/PostToolUse hooks)",
		hookDescription: "Reads one GitHub Copilot CLI hook event (JSON, the Claude Code shape Copilot CLI\n" +
			"sends to hooks named PreToolUse, PostToolUse...) on stdin and records it: the\n" +
			"session is run cp-<session_id>. Copilot CLI sends no tool call id, so each\n" +
			"PostToolUse is paired with the PreToolUse of the same tool and input, and the call\n" +
			"is cp-<session>-<n>. Write and Edit capture the one file they name; Bash and any\n" +
			"tool gitguard does not know (an MCP server's) capture the whole workspace;\n" +
			"read-only tools are ignored without opening the repository. SessionEnd (the end\n" +
			"of every prompt-mode turn) finishes the run and a call whose PostToolUse never\n" +
			"came, as uncertain. Set it up with 'gitguard init copilot --write'; find a tool\n" +
			"use's id with 'gitguard ledger' and undo it with 'gitguard undo --call CALL'.",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return copilot.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the Copilot CLI hooks that record each tool use",
		initDescription: "Prints the hooks file that makes GitHub Copilot CLI run 'gitguard hook copilot'\n" +
			"before and after every tool use (PreToolUse, PostToolUse, PostToolUseFailure) and\n" +
			"at SessionStart and SessionEnd. With --write it is merged into\n" +
			".github/hooks/gitguard.json at the top of the work tree, keeping any other hooks\n" +
			"there; running it twice adds nothing. --mcp also adds the gitguard MCP server to\n" +
			"the project's .mcp.json. Copilot CLI loads a repository's hooks only in a trusted\n" +
			"folder (trust it when asked, or pass --trust-folder with -p).",
		defaultCommand: copilot.HookCommand,
		fragment:       copilot.Fragment,
		install:        copilot.Init,
		next:           "Copilot CLI picks it up in its next session in a trusted folder (--trust-folder with -p)",
	}
}

func kiloSpec() *agentSpec {
	return &agentSpec{
		name: "kilo", title: kilo.Name,
		hookUsage: "record a Kilo CLI tool use (run by the plugin 'gitguard init kilo' writes)",
		hookDescription: "Reads one event of gitguard's Kilo CLI plugin (JSON, opencode's events) on stdin\n" +
			"and records it: the session is run kl-<sessionID>, each tool use is a call named\n" +
			"after its callID. write, edit and multiedit capture the one file they name; patch\n" +
			"and apply_patch the files their patch names; bash and any tool gitguard does not\n" +
			"know (an MCP server's) the whole workspace. session.idle (the end of a turn) and\n" +
			"session.deleted finish the run. Set it up with 'gitguard init kilo --write'; undo\n" +
			"one tool use with 'gitguard undo --call CALL' (the ids are in 'gitguard ledger').",
		read: func(r io.Reader, tools []string) (*agent.Event, error) {
			return kilo.Read(r, agent.ReadOptions{WorkspaceTools: tools})
		},
		initUsage: "print or install the Kilo CLI plugin that records each tool use",
		initDescription: "Prints the Kilo CLI plugin that runs 'gitguard hook kilo' on tool.execute.before,\n" +
			"tool.execute.after, session.idle and session.deleted. With --write it is written\n" +
			"to .kilo/plugin/gitguard.js at the top of the work tree (an older gitguard plugin\n" +
			"there is replaced; a file of yours is never touched). --mcp also adds the gitguard\n" +
			"MCP server under \"mcp\" in .kilo/kilo.json.",
		defaultCommand: kilo.HookCommand,
		fragment:       kilo.Fragment,
		install:        kilo.Init,
		next:           "Kilo CLI loads it when it next starts",
	}
}
