package hookwire

import (
	"encoding/json"
	"sort"
	"strings"
)

// readOnlyTools are, per agent (as in `gitguard hook NAME`), the tools
// known to change no file. The hooks match every tool, so that a tool that
// writes files and that gitguard does not know (an MCP server's, one a
// newer agent adds) is recorded as a whole-workspace call; these are
// answered at once instead, without opening the repository, capturing
// anything or asking the watch daemon. The adapters in agent/ read the same
// lists.
var readOnlyTools = map[string][]string{
	"claude-code": {"Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite", "TodoRead", "Task", "Agent",
		"NotebookRead", "ExitPlanMode", "EnterPlanMode", "BashOutput", "KillShell", "KillBash", "ListMcpResourcesTool",
		"ReadMcpResourceTool", "AskUserQuestion", "Skill", "SlashCommand", "ToolSearch", "TaskOutput", "TaskStop",
		"TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "Monitor"},
	"codex": {"update_plan", "view_image", "web_search", "tool_search", "list_mcp_resources",
		"list_mcp_resource_templates", "read_mcp_resource", "request_user_input"},
	"gemini": {"read_file", "read_many_files", "list_directory", "glob", "grep_search", "search_file_content",
		"google_web_search", "web_fetch", "save_memory", "write_todos", "activate_skill", "ask_user",
		"get_internal_docs", "enter_plan_mode", "exit_plan_mode", "list_mcp_resources", "read_mcp_resource"},
	"opencode": {"read", "glob", "grep", "list", "webfetch", "websearch", "todowrite", "todoread", "task", "skill",
		"lsp", "codesearch", "question", "invalid"},
	"kilo": {"read", "glob", "grep", "list", "webfetch", "websearch", "todowrite", "todoread", "task", "skill",
		"lsp", "codesearch", "question", "invalid"},
	"qwen": {"read_file", "read_many_files", "list_directory", "glob", "grep_search", "web_fetch", "web_search",
		"todo_write", "save_memory", "agent", "skill", "exit_plan_mode", "enter_plan_mode", "lsp", "zoom_image",
		"ask_user_question", "tool_search", "read_mcp_resource", "list_agents", "task_list", "cron_list"},
	// Copilot CLI sends Claude Code's tool names to hooks configured under
	// Claude Code's event names, and its own names to the others.
	"copilot": {"Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite", "Task", "Agent", "Skill",
		"AskUserQuestion", "ExitPlanMode", "BashOutput", "ToolSearch", "view", "read", "glob", "grep", "rg", "search",
		"web_fetch", "web_search", "fetch", "report_intent", "update_todo", "think", "task", "read_bash", "list_bash",
		"list_powershell", "read_powershell", "ask_user", "skill", "read_agent", "list_agents",
		"fetch_copilot_cli_documentation", "exit_plan_mode", "sql"},
	"cursor": {"Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch", "TodoWrite", "TodoRead", "Task", "Agent",
		"NotebookRead", "ExitPlanMode", "BashOutput", "ListMcpResourcesTool", "ReadMcpResourceTool",
		"AskUserQuestion", "Skill", "SlashCommand", "ToolSearch", "read_file", "codebase_search", "grep_search",
		"file_search", "list_dir", "web_search", "todo_write", "read_lints", "fetch_rules"},
}

// readOnlySets are readOnlyTools as sets.
var readOnlySets = func() map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(readOnlyTools))
	for agent, tools := range readOnlyTools {
		set := make(map[string]bool, len(tools))
		for _, t := range tools {
			set[t] = true
		}
		out[agent] = set
	}
	return out
}()

// mcpTools are the gitguard MCP server's tools. gitguard records what its
// own undo, redo and checkpoint do itself, so their tool uses are not
// recorded as calls again.
var mcpTools = map[string]bool{"status": true, "diff": true, "ledger": true, "resume": true, "checkpoint": true,
	"undo": true, "redo": true}

// mcpPrefixes are how the agents spell the gitguard MCP server's tools:
// mcp__gitguard__undo (Claude Code, Codex), gitguard__undo (Gemini CLI),
// gitguard_undo (opencode), gitguard-undo (Copilot CLI), and so on.
var mcpPrefixes = []string{"mcp__gitguard__", "mcp_gitguard_", "gitguard__", "gitguard_", "gitguard-", "gitguard/",
	"gitguard."}

// ReadOnlyTool reports whether agent's tool changes no file: one of the
// agent's read-only tools, or a tool of the gitguard MCP server.
func ReadOnlyTool(agent, tool string) bool {
	if readOnlySets[agent][tool] {
		return true
	}
	for _, p := range mcpPrefixes {
		if rest, ok := strings.CutPrefix(tool, p); ok && mcpTools[rest] {
			return true
		}
	}
	return false
}

// ReadOnlyEvent reports whether data is a hook event of one of agent's
// read-only tools (and so needs nothing from gitguard), unless that tool
// is one of workspaceTools. The tool is read from tool_name (Claude Code
// and the agents sharing its shape), toolName (Copilot CLI) or tool
// (gitguard's opencode and Kilo plugins); an event naming no tool is not
// one.
func ReadOnlyEvent(agent string, data []byte, workspaceTools []string) bool {
	if _, known := readOnlySets[agent]; !known {
		return false
	}
	var ev struct {
		ToolName  string `json:"tool_name"`
		ToolName2 string `json:"toolName"`
		Tool      string `json:"tool"`
	}
	if json.Unmarshal(data, &ev) != nil {
		return false
	}
	tool := ev.ToolName
	if tool == "" {
		tool = ev.ToolName2
	}
	if tool == "" {
		tool = ev.Tool
	}
	if tool == "" {
		return false
	}
	for _, w := range workspaceTools {
		if w == tool {
			return false
		}
	}
	return ReadOnlyTool(agent, tool)
}

// ReadOnlyTools lists agent's read-only tools, sorted, for a plugin that
// answers them itself without starting the hook.
func ReadOnlyTools(agent string) []string {
	out := append([]string(nil), readOnlyTools[agent]...)
	sort.Strings(out)
	return out
}
