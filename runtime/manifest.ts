/**
 * The lesson manifest: one entry per lesson, in order. The course command line (run, check,
 * hint, list, verify), the docs sidebar and the tests all read it, so a lesson exists in one
 * place. Hints are guiding questions; the second is stronger.
 *
 * s01–s17 are listed here; a later lesson registers itself in its own folder
 * (solutions/sNN_slug/course.json, runtime/registrations.ts) and is added to LESSONS from there.
 */
import { registrations } from "./registrations.ts";

export interface Lesson {
  /** Short id used on the command line: "s01". */
  id: string;
  /** Folder under lessons/ and solutions/, test file stem, docs page stem: "s01_agent_loop". */
  dir: string;
  title: string;
  /** The one idea this lesson adds, in a sentence. */
  idea: string;
  /** The lesson's runnable script inside its folder. */
  entry: string;
  hints: [string, string];
  /** The lesson it builds on, when not the one before (course.json's `base`): its page diffs against it. */
  base?: string;
}

const LISTED: Lesson[] = [
  {
    id: "s01",
    dir: "s01_agent_loop",
    title: "The agent loop",
    idea: "One raw call with a bash tool, then a while loop: append the reply, run the tools, answer them, repeat until stop_reason is not tool_use.",
    entry: "agent.ts",
    hints: [
      "What does the API need to see next time: only your tool results, or also the assistant turn that asked for them? " +
        "Which field of the response tells you whether the model is waiting for a tool? " +
        "How does the model know which result belongs to which call?",
      "Push { role: \"assistant\", content: response.content } first, unchanged. Return when stop_reason !== \"tool_use\". " +
        "Otherwise build one tool_result per tool_use block ({ type: \"tool_result\", tool_use_id: block.id, content: output }) " +
        "and push them all in ONE { role: \"user\", content: results } message.",
    ],
  },
  {
    id: "s02",
    dir: "s02_tool_dispatch",
    title: "Tool dispatch",
    idea: "Several tools behind one registry that yields the API's tool definitions and sends each tool_use to its handler by name; an unknown tool gets an is_error result, never a crash.",
    entry: "agent.ts",
    hints: [
      "Where does the list of tools the API sees come from, and where do the handlers live: could one object own both? " +
        "What should happen when the model names a tool the registry has never heard of: who needs to know, and how? " +
        "Which field ties a result to the call it answers?",
      "In dispatch: const tool = this.tools.get(call.name); if (!tool) return { type: \"tool_result\", tool_use_id: call.id, is_error: true, content: `Unknown tool ...` }. " +
        "Otherwise return { type: \"tool_result\", tool_use_id: call.id, content: await tool.run(inputOf(call), ctx) }, catching ToolError as is_error. " +
        "In the loop: for each tool_use block, results.push(await registry.dispatch(block, ctx)).",
    ],
  },
  {
    id: "s03",
    dir: "s03_parallel_tools",
    title: "Parallel tools",
    idea: "All the tool calls of one turn answered in ONE user message, in the order asked; read-only calls next to each other run at the same time, the others alone and in order.",
    entry: "agent.ts",
    hints: [
      "Two calls that only read cannot disturb each other; can a write and a read? Can two writes? " +
        "If you start several promises at once, who decides the order of the answers: the fastest call, or the model? " +
        "Which array method keeps the order of its input whatever order the promises settle in?",
      "batches: for each call, push it onto the last batch when both it and that batch are read-only, else start a new batch [call]. " +
        "runTools: for (const batch of batches(registry, calls)) results.push(...(await Promise.all(batch.map((c) => registry.dispatch(c, ctx))))).",
    ],
  },
  {
    id: "s04",
    dir: "s04_tool_errors",
    title: "Tool errors",
    idea: "Errors are observations: input that does not fit the tool's zod schema, a tool that throws, a tool that hangs past its timeout, each becomes an is_error result the model can act on; the loop never crashes on a tool.",
    entry: "agent.ts",
    hints: [
      "If a tool throws, who will catch it if you don't, and what does the model learn then? " +
        "Should a tool run at all when its input is missing a field? " +
        "And when a tool is stopped at its time limit, its tool_result is all the model knows: what must it say so the model does not make the same call and wait again?",
      "In safeDispatch: const problem = inputProblem(tool, call.input); if (problem) return errorResult(call, problem). " +
        "Then try { const output = await runWithDeadline(timeout, ctx.signal, (signal) => tool.run(input, { ...ctx, signal })); return { type: \"tool_result\", tool_use_id: call.id, content: output || \"(no output)\" } } " +
        "catch (e) { return errorResult(call, describeFailure(call.name, e)) }. " +
        "In timeoutMessage, one sentence: the tool's name, \"did not finish within ${ms / 1000} s and was stopped\", and what to do instead (not the same call again: a smaller task, or another way).",
    ],
  },
  {
    id: "s05",
    dir: "s05_stop_reasons",
    title: "Stop reasons",
    idea: "Every stop_reason handled and a typed Outcome returned: a cut-off answer (max_tokens) is never run but asked again with a larger limit, pause_turn continues, refusal and the others stop and say why, an empty answer is not stored.",
    entry: "agent.ts",
    hints: [
      "When the answer is cut off at max_tokens, is its last tool_use complete? What would running it do? " +
        "pause_turn means the turn is not over: what must the next request end with? " +
        "Which stop reasons mean success, and what should a value you have never seen mean?",
      "Before storing: if (stop_reason === \"max_tokens\" && !retried) { retried = true; maxTokens *= 4; continue }. " +
        "Then appendResponse(history, response) and switch: end_turn → return { status: \"done\", message: response, turns }; pause_turn → continue; tool_use → run the calls; " +
        "default → answerNotRun(history, response, why); return stoppedBy(response, turns). appendResponse: skip [] and join a paused assistant message.",
    ],
  },
  {
    id: "s06",
    dir: "s06_guards",
    title: "Guards",
    idea: "The loop stops itself: max turns, a token budget counting cache tokens, a deadline that aborts the request in flight, repeated identical calls; each a typed option with a default, and every stop leaves a transcript that can be sent again.",
    entry: "agent.ts",
    hints: [
      "Where in the loop does history end with every tool_use answered? Is that the safest place to stop? " +
        "Which limit must be checked first, so that a run past its deadline says so rather than \"max turns\"? " +
        "When the model repeats a call, its turn holds tool_use blocks: what must history hold before you return?",
      "RunGuards.check: const why = this.run.why(); if (why) return this.halted(why); if (this.turns >= this.limits.maxTurns) return this.stop(\"max_turns\", …); if (this.used >= this.limits.tokenBudget) return this.stop(\"token_budget\", …); return null. " +
        "Repeated: answerNotRun(history, response, `the run stopped: ${repeated.detail}`) before return repeated.",
    ],
  },
  {
    id: "s07",
    dir: "s07_safe_tools",
    title: "Safe tools",
    idea: "Tools that cannot hurt you: file paths confined to the workspace (.., absolute paths, symlinks out refused), bash capped, timed out by process group and without keys in its environment; not a block list (three bypasses shown) but read-only commands run freely and anything else asks for approval.",
    entry: "agent.ts",
    hints: [
      "Does \"a/../../x\" contain the word \"..\" where a string check looks for it? What does realpath say about a symlink, or a file that does not exist yet? " +
        "Is \"/ws-evil\" inside \"/ws\" because it starts with the same letters? Which of the two paths do you check, the one you were given or the one the file system reports?",
      "Workspace.resolve: const lexical = resolve(this.root, path); const real = realLocation(lexical); if (!isInside(this.root, real)) throw this.outside(path); return real.",
    ],
  },
  {
    id: "s08",
    dir: "s08_streaming",
    title: "Streaming",
    idea: "messages.stream: text printed as it arrives, tool input rebuilt from input_json_delta, read-only calls started before the message ends, Ctrl-C aborts and leaves a transcript that can be sent again, the same one a run without streaming leaves.",
    entry: "agent.ts",
    hints: [
      "Which stream event says a tool call's input is complete? Can you JSON.parse a partial_json piece on its own? " +
        "Which events carry text, and which carry a tool call's input? Where does the whole Message come from once the stream ends?",
      "streamTurn: const stream = client.messages.stream(params, signal ? { signal } : {}); stream.on(\"streamEvent\", (event) => …): content_block_start of tool_use → open.set(index, { block, json: \"\" }); " +
        "text_delta → handlers.onText(delta.text); input_json_delta → open.get(index).json += partial_json; content_block_stop → parseInput(json) → handlers.onToolUse({ ...block, input }). Return await stream.finalMessage().",
    ],
  },
  {
    id: "s09",
    dir: "s09_observability",
    title: "Observability",
    idea: "One typed event per step (think, act, observe, stop), a logger turned up with --verbose, usage and cost per turn and per run, the message table of a run (--trace), and every run written as JSONL under .course/runs/.",
    entry: "agent.ts",
    hints: [
      "Where in the loop does a response arrive, and where does the run end (count the returns)? Which one place could every ending pass through? " +
        "Is a run's cost the cost of its last turn, or of all of them?",
      "RunEvents.think: const usage = turnUsage(this.model, message.usage); this.totals = addTurn(this.totals, usage); this.emit({ type: \"think\", turn: this.turn(), message, usage, ms: Date.now() - asked }). " +
        "RunEvents.stop: this.emit({ type: \"stop\", turn: this.turn(), outcome, totals: this.totals, ms: Date.now() - this.startedAt }); return outcome.",
    ],
  },
  {
    id: "s10",
    dir: "s10_conversation",
    title: "A conversation",
    idea: "A REPL over one history (the outer loop around the agent loop): /exit, /reset, /save, sessions saved and resumed from disk, and Ctrl-C cancelling the turn in flight while the session stays usable.",
    entry: "agent.ts",
    hints: [
      "After Ctrl-C, what can the last message of the history be: a question with no answer, or an assistant tool_use with no result? " +
        "What would the API say to the next request in each case? " +
        "If the history already ends with a user message, where does the next question go so roles still alternate?",
      "settleTurn: if history.length === turnStart + 1, history.pop(). Else if the last message is an assistant one with tool_use blocks, " +
        "history.push({ role: \"user\", content: pending.map((b) => ({ type: \"tool_result\", tool_use_id: b.id, content: CANCELLED_RESULT, is_error: true })) }). " +
        "addQuestion: if the last message is a user one, append { type: \"text\", text } to its content array; else push { role: \"user\", content: text }. " +
        "replOver: runTurn: (history, signal) => loop(llm, history, { onEvent: createLogger(), ...opts.agent, signal } as O).",
    ],
  },
  {
    id: "s11",
    dir: "s11_recovery",
    title: "Recovery",
    idea: "The SDK's retries configured (429 with retry-after, 5xx, 529); a stream broken mid-way retried by the loop; prompt too long and a full context window answered by compaction that keeps every tool_use/tool_result pair whole; max_tokens continuation.",
    entry: "agent.ts",
    hints: [
      "If you drop the oldest messages, which cut points can never leave a tool_result without its tool_use (or the reverse)? " +
        "Once compacted, which turn do you ask again: the one that failed, or the next? And when no compaction is left?",
      "cutPoints: every index i >= 2 with messages[i].role === \"assistant\". " +
        "Loop: isPromptTooLong(e) → if (recovery.compact(windowOf(e))) continue; else return events.stop(guard.stop(\"prompt_too_long\", …)).",
    ],
  },
  {
    id: "s12",
    dir: "s12_guarded_agent",
    title: "The guarded agent",
    idea: "The capstone, npm run agent: every earlier option as a flag (--workspace, --model, --max-turns, --budget, --timeout, --yes, --verbose, --trace), a one-shot task or the conversation, offline by default.",
    entry: "agent.ts",
    hints: [
      "Which lesson made each flag's option, and what is that option called in RunOptions? " +
        "Which guards should keep their defaults when a flag is not given? " +
        "Who asks for approval when --yes is not given, and what happens when there is no terminal?",
      "optionsFrom: const guards = { ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}), ...(flags.budget !== undefined ? { tokenBudget: flags.budget } : {}), ...(flags.timeoutMs !== undefined ? { timeoutMs: flags.timeoutMs } : {}) }; " +
        "return { root: flags.workspace, approve: terminalApprover({ yes: flags.yes }), guards, onEvent: onEvent ?? createLogger({ verbose: flags.verbose }) }.",
    ],
  },
  {
    id: "s13",
    dir: "s13_caching",
    title: "Prompt caching",
    idea: "The loop marks prompt-cache breakpoints itself: the last tool and the system prompt once, the newest messages moved forward every turn, never more than four and never stored in the history; each turn's usage shows what the cache wrote and read.",
    entry: "agent.ts",
    hints: [
      "Which part of a request is the same from one turn to the next, and which part grows? A marker caches everything BEFORE it: where should the last one go? " +
        "The API refuses a fifth cache_control marker: what happens after six turns if you put a marker on the history's newest message and leave it there? " +
        "Should the transcript you save say cache_control at all?",
      "withCacheBreakpoints: tools.map((t, i) => i === tools.length - 1 ? { ...t, cache_control: EPHEMERAL } : t); system as [{ type: \"text\", text, cache_control }]; " +
        "const messages = [...prompt.messages]; messages[newest] = markLastBlock(messages[newest]) (and the user message before the previous one). " +
        "markLastBlock copies: const blocks = typeof content === \"string\" ? [{ type: \"text\", text: content }] : [...content]; blocks[last] = marked(blocks[last]). " +
        "In agent.ts, the request hook: (prompt) => (opts.cache === false ? prompt : withCacheBreakpoints(prompt)).",
    ],
  },
  {
    id: "s14",
    dir: "s14_planning",
    title: "Planning",
    idea: "A todo tool whose state the loop owns: the model rewrites the whole list, at most one item in progress, a bad list refused with is_error; the loop shows the progress, and when the plan has been left alone for N turns adds a reminder as text AFTER that turn's tool results.",
    entry: "agent.ts",
    hints: [
      "If the plan lived only in the model's messages, who could check it? What should the model learn when it marks two items in progress, and what happens to the old plan? " +
        "A user message that answers tool calls: which blocks must come first in it? Where can a reminder go, then, without a message of its own? " +
        "How do you keep a stale plan from being recalled on every single turn?",
      "Plan.update: const doing = items.filter((i) => i.status === \"in_progress\"); if (doing.length > 1) throw new ToolError(`… work on one at a time … The plan was not changed.`); then this.list = …; this.touchedAt = turn; return this.render(). " +
        "staleReminder: if (plan.open === 0 || turn - Math.max(plan.touchedAt, plan.remindedAt) < after) return null; plan.remindedAt = turn; return `<reminder>…${plan.render()}</reminder>`. " +
        "In agent.ts, the answer hook: const reminder = staleReminder(plan, guard.turns, opts.remindAfter ?? REMIND_AFTER); return reminder ? [...results, { type: \"text\", text: reminder }] : results.",
    ],
  },
  {
    id: "s15",
    dir: "s15_subagents",
    title: "Subagents",
    idea: "A task tool that runs the same loop as a child: a fresh history, read-only tools its parent has, its own guards and a share of the parent's budget; only its final answer returns, its transcript saved beside the parent's; independent tasks run at once; a child that stops or fails is an is_error result; its tokens count in the parent's budget; nesting is bounded.",
    entry: "agent.ts",
    hints: [
      "What should the child see of the parent's conversation, and what should the parent see of the child's? If a child's tool_use reached the parent's history, what would the API say? " +
        "If the child throws, or stops on a guard, what should the parent's tool_result say, and with which flag?",
      "In taskTool's run: runChild([{ role: \"user\", content: prompt }], { registry: subset, guards: { ...CHILD_GUARDS, tokenBudget: share }, signal: ctx.signal, depth: depth + 1, onTokens }); " +
        "a child whose outcome is not done → throw new ToolError(`… did not finish: ${describeOutcome(outcome)}`); else return its final text.",
    ],
  },
  {
    id: "s16",
    dir: "s16_skills",
    title: "Skills",
    idea: "Skills as folders with a SKILL.md (YAML front matter: name, description; a body of instructions): the system prompt lists only names and descriptions, a load_skill tool returns a body when the model asks, so the prompt stays small however many skills there are.",
    entry: "agent.ts",
    hints: [
      "What does the model need to know up front to decide that a skill applies, and what only once it has decided? " +
        "Front matter is YAML: what does a hand-made split on \":\" do to a description that spans two lines, or holds a colon? " +
        "A broken SKILL.md among fifty: should the agent refuse to start, or say which one and go on?",
      "parseSkill: const m = /^---\\r?\\n([\\s\\S]*?)\\r?\\n---\\r?\\n?([\\s\\S]*)$/.exec(text); data = parse(m[1]) (yaml); FrontMatter.safeParse(data); return { name, description, body: m[2].trim(), file }. " +
        "skillsPrompt: [\"\", \"Skills: … load_skill …\", ...skills.map((s) => `- ${s.name}: ${s.description}`)].join(\"\\n\"). " +
        "load_skill: skills.find((s) => s.name === name) ?? throw new ToolError(`no skill is named …; the skills are: …`). In agent.ts, the system hook: (text) => text + skillsPrompt(skills).",
    ],
  },
  {
    id: "s17",
    dir: "s17_mcp",
    title: "MCP tools",
    idea: "Tools from MCP servers over stdio with the SDK's client: servers started from an mcpServers config and stopped when the run ends, their tools offered as mcp__<server>__<tool> with their JSON Schemas, results mapped to tool_result blocks (text, images, isError), a server that hangs, crashes or fails an is_error result, never an exception.",
    entry: "agent.ts",
    hints: [
      "Two servers may both have a tool called search: how does the model tell them apart, and which characters may a tool name hold? " +
        "An MCP result has content blocks and an isError flag; a tool_result has content blocks and is_error: what maps to what, and what must an error result never be? " +
        "The loop can end in three ways (done, stopped, an exception): in which of them must the servers' processes stop?",
      "toolName: `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, \"_\").slice(0, 128). " +
        "toToolResult: text → { type: \"text\", text }; image with a known mimeType → { type: \"image\", source: { type: \"base64\", media_type: mimeType, data } }; else a short text; never empty; is_error: result.isError === true. " +
        "runAgent: try { return await skilledLoop(llm, history, { ...opts, extensions }) } finally { await started?.close() }.",
    ],
  },
];

/** Every lesson, in id order: those listed above, then those registered in their folders. */
export const LESSONS: Lesson[] = [...LISTED, ...registrations().map((r): Lesson => ({ ...r.lesson, dir: r.dir, ...(r.base ? { base: r.base } : {}) }))];
{
  const ids = new Set<string>();
  for (const l of LESSONS) {
    if (ids.has(l.id)) throw new Error(`two lessons have the id ${l.id}: ${LESSONS.filter((o) => o.id === l.id).map((o) => o.dir).join(" and ")}`);
    ids.add(l.id);
  }
}

/** Finds a lesson by "s01", "1", "01" or "s01_agent_loop". */
export function findLesson(key: string): Lesson | undefined {
  const k = key.trim().toLowerCase();
  const n = /^s?0*(\d+)$/.exec(k)?.[1];
  // The folder's name without its number is the lesson's slug ("agent_loop", "agent-loop" too).
  const slug = k.replace(/-/g, "_");
  return LESSONS.find((l) => l.dir === k || l.id === k || l.dir.slice(l.id.length + 1) === slug || (n !== undefined && Number(l.id.slice(1)) === Number(n)));
}

/** The lesson `lesson` builds on: its declared base (course.json), else the one before it in `lessons`. */
export function baseOf(lesson: Lesson, lessons: readonly Lesson[] = LESSONS): Lesson | undefined {
  if (lesson.base) return lessons.find((l) => l.id === lesson.base);
  const index = lessons.findIndex((l) => l.dir === lesson.dir);
  return index > 0 ? lessons[index - 1] : undefined;
}
