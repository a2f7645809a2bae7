/**
 * Every scenario the scripted model knows. s01–s17 are imported here; a lesson that registers
 * itself (solutions/sNN_slug/course.json) has its scenarios found in `./<its folder>.ts`: every
 * export of that file that is a Scenario is added, nothing to edit here.
 * Routing: a scenario named explicitly (option or `x-scripted-scenario` header) wins; otherwise
 * the one whose `task` equals the conversation's first user text; otherwise the intents.
 */
import { existsSync } from "node:fs";
import { registrations } from "../../registrations.ts";
import type { Scenario, ScriptedRequest } from "../types.ts";
import { readConversation } from "../conversation.ts";
import { intents } from "./intents.ts";
import { say } from "./script.ts";
import { s01AgentLoop } from "./s01_agent_loop.ts";
import { s02ToolDispatch } from "./s02_tool_dispatch.ts";
import { s03ParallelTools } from "./s03_parallel_tools.ts";
import { s04ToolErrors } from "./s04_tool_errors.ts";
import { S05_TOUR, s05StopReasons } from "./s05_stop_reasons.ts";
import { s06Guards } from "./s06_guards.ts";
import { s07SafeTools } from "./s07_safe_tools.ts";
import { s08Streaming } from "./s08_streaming.ts";
import { s10Conversation } from "./s10_conversation.ts";
import { s11Recovery } from "./s11_recovery.ts";
import { s12GuardedAgent, s12GuardedAgentZh } from "./s12_guarded_agent.ts";
import { s13Caching } from "./s13_caching.ts";
import { s14Planning } from "./s14_planning.ts";
import { s15ChildLog, s15ChildSource, s15Subagents } from "./s15_subagents.ts";
import { s16Skills } from "./s16_skills.ts";
import { s17Mcp } from "./s17_mcp.ts";
import { EVAL_SCENARIOS } from "./evals.ts";
import { planMode } from "./plan_mode.ts";

/** Answers "ok": used to ask "would the API accept this transcript?" without a real turn. */
export const echo: Scenario = { id: "echo", title: "Answers ok to anything", reply: () => say("ok") };

export const SCENARIOS: Scenario[] = [intents, echo, s01AgentLoop, s02ToolDispatch, s03ParallelTools, s04ToolErrors, s05StopReasons, s06Guards, s07SafeTools, s08Streaming, s10Conversation, s11Recovery, s12GuardedAgent, s12GuardedAgentZh, ...S05_TOUR.map((t) => t.scenario), s13Caching, s14Planning, s15Subagents, s15ChildSource, s15ChildLog, s16Skills, s17Mcp, planMode, ...EVAL_SCENARIOS, ...(await registeredScenarios())];

/** The scenarios of the lessons that register themselves: the Scenario exports of ./<dir>.ts. */
async function registeredScenarios(): Promise<Scenario[]> {
  const isScenario = (v: unknown): v is Scenario => typeof v === "object" && v !== null && typeof (v as Scenario).id === "string" && typeof (v as Scenario).reply === "function";
  const found: Scenario[] = [];
  for (const reg of registrations()) {
    const file = new URL(`./${reg.dir}.ts`, import.meta.url);
    if (!existsSync(file)) continue;
    const mod = (await import(file.href)) as Record<string, unknown>;
    found.push(...Object.values(mod).filter(isScenario));
  }
  return found;
}

export class UnknownScenarioError extends Error {}

export function findScenario(id: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.id === id || s.id.startsWith(`${id}_`));
}

export function routeScenario(forced: string | Scenario | undefined | null, request: ScriptedRequest): Scenario {
  if (forced && typeof forced !== "string") return forced;
  if (forced) {
    const found = findScenario(forced);
    if (!found)
      throw new UnknownScenarioError(`unknown scenario "${forced}"; known: ${SCENARIOS.map((s) => s.id).join(", ")}`);
    return found;
  }
  const first = readConversation(request, 0).firstPrompt.trim();
  return SCENARIOS.find((s) => s.task !== undefined && s.task.trim() === first) ?? intents;
}
