/**
 * The rule catalog: every rule the grading checks, by id, with what it means and how to fix it,
 * in English and Chinese (zh-CN). One file, read by `npm run check` (beside the failure that
 * names the rule), by `npm run hint` (the rule the last check broke) and by the docs' message
 * rules page of each language (docs/guide/message-rules.md and its translations), whose table the
 * site's markdown makes from this catalog when it builds the page (scripts/lib/rules-doc.ts).
 *
 * `stage` orders a check's findings, the cause first: the file does not parse → it does not
 * type-check → the loop never returned → the history did not grow / lost the assistant turn →
 * the pairing rules every request must keep → the lesson's own rules → the net under them (the
 * learner's loop beside the reference on the same model answers: tests/differential/net.ts),
 * last, so a rule that names the cause always leads.
 */

import { existsSync, readFileSync } from "node:fs";
import { registrations } from "./registrations.ts";

/**
 * The languages the course speaks (its rule catalog and the command line: list, check, hint, lesson,
 * reset, solution, watch): English, and every language listed after it. English and Chinese are
 * written beside each rule below (and in each lesson's course.json); every other language keeps its
 * words in a file of its own, runtime/i18n/rules.<lang>.json (rule id → { what, fix }), so a
 * translation is added or corrected without touching the rules themselves. A new language is one
 * more entry here, its files (runtime/i18n/rules, hints and cli.<lang>.json: runtime/words.ts), its
 * lesson pages (their headings are the lessons' titles), and its words wherever `inEvery()` is given
 * words (a type error names each place) or `say()` is (English is the fallback for any it lacks;
 * `npm run docs:sync` names every rule, hint, title and word a language lacks).
 */
export const COURSE_LANGS = ["en", "zh", "ja", "ru"] as const;
export type Lang = (typeof COURSE_LANGS)[number];

export const STAGES = ["syntax", "types", "hang", "growth", "pairing", "lesson", "net"] as const;
export type Stage = (typeof STAGES)[number];

interface Words {
  /** The rule, in one sentence. */
  what: string;
  /** What to do when it is broken. */
  fix: string;
}

export interface RuleEntry {
  stage: Stage;
  en: Words;
  zh: Words;
  /** From runtime/i18n/rules.<lang>.json (or the lesson's course.json), when written. */
  ja?: Words;
  ru?: Words;
}

const r = (stage: Stage, en: [string, string], zh: [string, string]): RuleEntry => ({
  stage,
  en: { what: en[0], fix: en[1] },
  zh: { what: zh[0], fix: zh[1] },
});

const LISTED = {
  // ── the file itself ──
  "syntax-error": r(
    "syntax",
    ["The lesson's files must parse as TypeScript.", "Fix the syntax at the line shown (a missing bracket, quote or comma) and save."],
    ["课程文件必须能被解析为 TypeScript。", "修正所示行的语法（缺少括号、引号或逗号），然后保存。"],
  ),
  "type-error": r(
    "types",
    ["The lesson's files must type-check: the SDK's types say what each request and block may contain.", "Read the message at the line shown; make the value match the type it names (often a missing field or a wrong block shape)."],
    ["课程文件必须通过类型检查：SDK 的类型规定了每个请求和内容块可以包含什么。", "阅读所示行的信息，让值符合它指出的类型（通常是缺少字段或内容块形状不对）。"],
  ),
  // ── the loop ends ──
  "loop-did-not-return": r(
    "hang",
    ["The loop must return: after a response whose stop_reason is not tool_use, or when a guard stops it.", "Look at the last request the loop made: return when the model is not waiting for tool results, and make sure every await can finish."],
    ["循环必须返回：在 stop_reason 不是 tool_use 的响应之后，或被某个保护机制停止时。", "查看循环发出的最后一个请求：模型不再等待工具结果时就返回，并确保每个 await 都能完成。"],
  ),
  "loop-threw": r(
    "lesson",
    ["The loop must not throw on what the lesson says it handles.", "Read the error and the line it came from; catch it where the lesson says, or fix the request that the API refused."],
    ["循环不能在课程要求它处理的情况下抛出异常。", "阅读错误及其来源行；在课程指定的位置捕获它，或修正被 API 拒绝的请求。"],
  ),
  "stop-when-done": r(
    "hang",
    ["When stop_reason is not tool_use (end_turn, max_tokens, stop_sequence, refusal), the model is not waiting for results: the loop stops instead of calling again.", "Return right after you append the response when response.stop_reason !== \"tool_use\" (pause_turn only where the lesson says to continue)."],
    ["当 stop_reason 不是 tool_use（end_turn、max_tokens、stop_sequence、refusal）时，模型并不在等待结果：循环应停止，而不是再次调用。", "追加响应后，若 response.stop_reason !== \"tool_use\" 就立即返回（仅在课程要求时对 pause_turn 继续）。"],
  ),
  // ── the history grows ──
  "history-not-grown": r(
    "growth",
    ["The loop works on the history it was given: each response and each batch of results is pushed onto that same array.", "Push onto the `history` parameter itself (history.push(...)); do not build a new array the caller never sees."],
    ["循环在传入的 history 上工作：每个响应和每批结果都追加到同一个数组。", "直接对参数 history 调用 history.push(...)；不要新建一个调用方看不到的数组。"],
  ),
  "assistant-turn-missing": r(
    "growth",
    ["Every response goes into the history as an assistant message before its tool results.", "Right after each create()/stream, push { role: \"assistant\", content: response.content }."],
    ["每个响应都要先作为 assistant 消息放入 history，然后才是它的工具结果。", "每次 create()/stream 之后，立即 push { role: \"assistant\", content: response.content }。"],
  ),
  // ── the pairing rules (runtime/transcript.ts) ──
  "first-message-user": r(
    "pairing",
    ["A conversation starts with a user message.", "Start the history with { role: \"user\", content: task }."],
    ["对话必须以 user 消息开始。", "history 的第一条应是 { role: \"user\", content: task }。"],
  ),
  "roles-alternate": r(
    "pairing",
    ["Roles alternate: user, assistant, user, …", "Append each response once, then ONE user message with all of that turn's results."],
    ["角色必须交替：user、assistant、user……", "每个响应只追加一次，然后追加一条包含本轮全部结果的 user 消息。"],
  ),
  "empty-message": r(
    "pairing",
    ["Every message has content (only a final assistant turn may be empty).", "Do not store an empty response or an empty user message; leave it out."],
    ["每条消息都要有内容（只有最后的 assistant 轮可以为空）。", "不要保存空响应或空的 user 消息，直接略过。"],
  ),
  "empty-text": r(
    "pairing",
    ["Text blocks are never empty.", "Leave an empty text block out, or say \"(no output)\"."],
    ["文本块不能为空。", "省略空文本块，或写成 \"(no output)\"。"],
  ),
  "wrong-role-block": r(
    "pairing",
    ["tool_use and thinking blocks belong to the assistant; tool_result blocks to the user.", "Put each block in the message of its role."],
    ["tool_use 和 thinking 块属于 assistant，tool_result 块属于 user。", "把每个块放进其角色对应的消息里。"],
  ),
  "unanswered-tool-use": r(
    "pairing",
    ["Every tool_use is answered by a tool_result with its id in the very next user message, even when the loop stops.", "Answer each call (is_error: true with a reason if you did not run it) before you send again or return."],
    ["每个 tool_use 都要在紧接着的 user 消息中有同 id 的 tool_result，即使循环要停止。", "再次发送或返回之前回答每个调用（没有运行的用 is_error: true 并说明原因）。"],
  ),
  "results-split": r(
    "pairing",
    ["All the results of one turn go in ONE user message.", "Collect the results in an array and push one user message with all of them."],
    ["同一轮的所有结果放在同一条 user 消息里。", "把结果收集到一个数组中，然后追加一条包含全部结果的 user 消息。"],
  ),
  "results-first": r(
    "pairing",
    ["tool_result blocks come first in the user message; any text goes after them.", "Put the results first, then the text."],
    ["user 消息中 tool_result 块必须排在最前，文本放在其后。", "先放结果，再放文本。"],
  ),
  "orphan-result": r(
    "pairing",
    ["A tool_result answers a tool_use of the message right before it.", "Use block.id of the call you ran as tool_use_id."],
    ["tool_result 必须回答前一条消息中的 tool_use。", "用所运行调用的 block.id 作为 tool_use_id。"],
  ),
  "duplicate-result": r(
    "pairing",
    ["Each tool_use gets exactly one tool_result.", "Answer each id once."],
    ["每个 tool_use 只能有一个 tool_result。", "每个 id 只回答一次。"],
  ),
  "duplicate-tool-use-id": r(
    "pairing",
    ["tool_use ids are unique in a conversation.", "Append each response once; do not copy an assistant turn."],
    ["对话中 tool_use 的 id 必须唯一。", "每个响应只追加一次，不要复制 assistant 轮。"],
  ),
  "error-result-empty": r(
    "pairing",
    ["An error result says what went wrong.", "Give is_error results a message the model can act on."],
    ["错误结果要说明出了什么问题。", "给 is_error 结果写上模型能据以行动的信息。"],
  ),
  "not-verbatim": r(
    "pairing",
    ["The assistant's turn goes back exactly as it came: every block, thinking and its signature included, in order, in every later request.", "Push response.content itself; do not filter, rebuild or edit its blocks."],
    ["assistant 轮必须原样发回：所有块（包括 thinking 及其签名）按原顺序，在之后的每个请求中都如此。", "直接追加 response.content，不要过滤、重建或修改其中的块。"],
  ),
  "api-rejected": r(
    "pairing",
    ["Every request is one the API accepts.", "Read the API's message: it names the message and block at fault."],
    ["每个请求都必须能被 API 接受。", "阅读 API 返回的信息：它会指出出错的消息和块。"],
  ),
  "sendable-again": r(
    "pairing",
    ["However the loop stops, the history it leaves can be sent to the API again.", "Before you return, answer every tool_use and leave no empty or half-built message."],
    ["无论循环如何停止，留下的 history 都必须能再次发送给 API。", "返回前回答每个 tool_use，不留空消息或未完成的消息。"],
  ),
  // ── the lessons' own rules ──
  "tool-definition": r(
    "lesson",
    ["Each tool has a name, a description and a JSON schema of its input.", "Check the tool definition against the lesson: its name and its input_schema's required fields."],
    ["每个工具都有名称、描述和输入的 JSON schema。", "对照课程检查工具定义：名称以及 input_schema 的 required 字段。"],
  ),
  "raw-call": r(
    "lesson",
    ["Part one makes one request with the tools and returns the model's message as it came.", "Call client.messages.create once with model, max_tokens, tools and the task, and return the response."],
    ["第一部分发送一次带工具的请求，并原样返回模型的消息。", "调用一次 client.messages.create（包含 model、max_tokens、tools 和任务），并返回响应。"],
  ),
  "tools-only-on-tool-use": r(
    "lesson",
    ["Tools run only when stop_reason is tool_use; on any other stop reason the loop ends without running them.", "Check response.stop_reason before running any block: a tool_use in a max_tokens response may be cut off."],
    ["只有 stop_reason 为 tool_use 时才运行工具；其他停止原因下循环结束且不运行工具。", "运行任何块之前先检查 response.stop_reason：max_tokens 响应里的 tool_use 可能被截断。"],
  ),
  "pause-turn": r(
    "lesson",
    ["pause_turn means the model paused a long turn: send the history back as it is so it can continue.", "On pause_turn, append the response and call again without adding a user message."],
    ["pause_turn 表示模型暂停了较长的一轮：原样发回 history 让它继续。", "遇到 pause_turn 时，追加响应并再次调用，不要添加 user 消息。"],
  ),
  "result-by-id": r(
    "lesson",
    ["Each tool's output goes back under the id of the call that asked for it.", "Build each tool_result from the same block you ran: tool_use_id: block.id, content: that call's output."],
    ["每个工具的输出都要用发起该调用的 id 返回。", "用所运行的那个块构造 tool_result：tool_use_id: block.id，content 为该调用的输出。"],
  ),
  "result-is-output": r(
    "lesson",
    ["A tool_result carries what the tool really returned (its output or its error), not a placeholder.", "Put the tool's output (string or text blocks) in content."],
    ["tool_result 携带工具真实的返回（输出或错误），而不是占位符。", "把工具的输出（字符串或文本块）放进 content。"],
  ),
  "tool-failure-observed": r(
    "lesson",
    ["A tool that fails is an observation for the model, not the end of the loop.", "Turn the failure into a tool_result (is_error: true, with the reason) and go on."],
    ["工具失败是给模型的观察结果，而不是循环的终点。", "把失败转成 tool_result（is_error: true 并写明原因），然后继续。"],
  ),
  "unknown-tool": r(
    "lesson",
    ["A call to a tool that does not exist gets an is_error result naming the tools there are.", "Look the name up in the registry; when it is missing, answer with is_error: true and the list of names."],
    ["调用不存在的工具时，返回 is_error 结果并列出现有工具。", "在注册表中查找名称；找不到时回答 is_error: true 并附上名称列表。"],
  ),
  "dispatch": r(
    "lesson",
    ["Each call runs the handler registered under its name, with its input.", "Dispatch by block.name through the registry and pass block.input."],
    ["每个调用按名称运行注册的处理函数，并传入其输入。", "通过注册表按 block.name 分派，并传入 block.input。"],
  ),
  "concurrency": r(
    "lesson",
    ["Concurrency-safe tools of one turn run at the same time; the others one at a time, in order.", "Start the safe calls together (Promise.all / allSettled) and await the unsafe ones one by one."],
    ["同一轮中并发安全的工具同时运行；其他工具按顺序逐个运行。", "同时启动安全的调用（Promise.all / allSettled），不安全的逐个 await。"],
  ),
  "invalid-input": r(
    "lesson",
    ["An input that does not match the tool's schema is answered, in words for the model, and the tool is not run.", "Validate with the tool's zod schema; on failure return is_error: true saying what was wrong."],
    ["不符合工具 schema 的输入要用模型能读懂的话回答，并且不运行工具。", "用工具的 zod schema 校验；失败时返回 is_error: true 并说明问题。"],
  ),
  "tool-timeout": r(
    "lesson",
    ["A tool that takes too long is stopped and answered with an error.", "Race the tool against a timer (AbortSignal.timeout) and answer is_error: true when it fires."],
    ["耗时过长的工具要被停止，并以错误回答。", "让工具与计时器赛跑（AbortSignal.timeout），超时后回答 is_error: true。"],
  ),
  "typed-outcome": r(
    "lesson",
    ["The loop returns an outcome that says how it ended (done, stopped and why).", "Return the lesson's outcome object for each stop reason."],
    ["循环返回说明其结束方式的结果（完成、停止及原因）。", "针对每种停止原因返回课程规定的结果对象。"],
  ),
  "guard-max-turns": r(
    "lesson",
    ["The loop stops after the maximum number of turns, leaving a transcript that can be sent again.", "Count turns; when the limit is reached, answer any pending calls and return a stopped outcome."],
    ["循环在达到最大轮数后停止，并留下可再次发送的记录。", "统计轮数；达到上限时回答未完成的调用并返回 stopped 结果。"],
  ),
  "guard-budget": r(
    "lesson",
    ["The token budget counts input, output, cache read and cache creation tokens.", "Add all four usage fields of every response to the total."],
    ["token 预算统计 input、output、cache read 和 cache creation。", "把每个响应 usage 的四个字段都加进总数。"],
  ),
  "guard-timeout": r(
    "lesson",
    ["The wall-clock guard aborts the request in flight and stops the loop.", "Pass an AbortSignal to the request and stop when it fires."],
    ["时钟保护会中止进行中的请求并停止循环。", "给请求传入 AbortSignal，触发时停止。"],
  ),
  "guard-repeat": r(
    "lesson",
    ["The repeat guard stops identical calls (same tool AND same input) and leaves different inputs alone.", "Key each call by its name and its input (stable JSON), and count repeats of that key."],
    ["重复保护会阻止完全相同的调用（相同工具且相同输入），不同输入的调用不受影响。", "用名称加输入（稳定的 JSON）作为每个调用的键，并统计该键的重复次数。"],
  ),
  "workspace": r(
    "lesson",
    ["File tools stay inside the workspace: no .., no absolute path outside, no symlink out.", "Resolve the real path and check it is inside the workspace before you touch the file."],
    ["文件工具只能在工作区内：不能用 ..、外部绝对路径或指向外部的符号链接。", "先解析真实路径并确认它在工作区内，再操作文件。"],
  ),
  "approval": r(
    "lesson",
    ["A command that is not read-only runs only after approval.", "Ask before running it; a refusal is an is_error result."],
    ["非只读命令只有在批准后才能运行。", "运行前先询问；被拒绝时返回 is_error 结果。"],
  ),
  "streaming": r(
    "lesson",
    ["The streamed message is the same message: text as it arrives, tool input rebuilt from its JSON deltas.", "Use the stream's events for printing and its final message (or a message you build from every event) for the history."],
    ["流式得到的消息与普通消息相同：文本随到随显示，工具输入由 JSON 增量重建。", "用流的事件来打印，用最终消息（或由所有事件构建的消息）放入 history。"],
  ),
  "abort-leaves-transcript": r(
    "lesson",
    ["An aborted turn leaves the history as it was before the turn, or complete: never half a turn.", "On abort, drop the unfinished assistant turn (or answer its calls) before you return."],
    ["被中止的一轮要让 history 保持该轮之前的状态或完整状态，绝不能只有半轮。", "中止时丢弃未完成的 assistant 轮（或回答其调用）后再返回。"],
  ),
  "observability": r(
    "lesson",
    ["Each step emits its event, and usage and cost add up over the run.", "Emit think / act / observe events in order and add every response's usage."],
    ["每一步发出对应事件，usage 和成本在整次运行中累计。", "按顺序发出 think / act / observe 事件，并累加每个响应的 usage。"],
  ),
  "session": r(
    "lesson",
    ["A conversation keeps one history across turns, saved and resumed as it was.", "Append each turn to the same history; save and load it without changing its messages."],
    ["对话在多轮之间保持同一个 history，保存和恢复时保持原样。", "把每轮追加到同一个 history；保存和加载时不要改动消息。"],
  ),
  "recovery": r(
    "lesson",
    ["Faults are recovered as the lesson says: retries configured, a broken stream retried, a long history compacted with every pair kept, a cut-off answer continued.", "Follow the lesson's recipe for the fault named in the test."],
    ["按课程要求从故障中恢复：配置重试、重试中断的流、压缩过长的 history 并保留每个配对、续写被截断的回答。", "按测试中指出的故障，照课程的做法处理。"],
  ),
  "continuation": r(
    "lesson",
    ["After max_tokens cut an answer, the loop asks the model to continue (a user message, string or text blocks) and keeps both parts.", "Append the cut response, then a user message asking to continue, and call again."],
    ["回答被 max_tokens 截断后，循环请模型继续（一条 user 消息，字符串或文本块均可）并保留两部分。", "追加被截断的响应，再追加请求继续的 user 消息，然后再次调用。"],
  ),
  "repeat-answered": r(
    "lesson",
    ["When the agent stops on a repeated call, that call is still answered, so the transcript can be sent again.", "Answer the repeated tool_use with is_error: true (why it was not run) before you return."],
    ["代理因重复调用而停止时，仍要回答该调用，使记录可以再次发送。", "返回前用 is_error: true（说明未运行的原因）回答重复的 tool_use。"],
  ),
  // ── s01–s06: rules their grading names (one block, so other lessons' blocks merge beside it) ──
  "whole-history": r(
    "growth",
    ["Each request sends the whole history: every earlier message, in order and unchanged (the model remembers nothing between calls).", "Pass `messages: history` itself (or a full copy of it) to every create(); do not slice, filter or rebuild it, and never change a message once it is in the history (make a new results array each turn)."],
    ["每个请求都发送完整的 history：之前的每条消息，按顺序且不加改动（模型在两次调用之间什么都不记得）。", "每次 create() 都传 `messages: history` 本身（或它的完整副本）；不要截取、过滤或重建它，消息一旦放入 history 就不要再改（每轮新建一个结果数组）。"],
  ),
  "tools-offered": r(
    "lesson",
    ["Every request offers the tools (`tools: registry.definitions()`): the model can only call what it is shown.", "Pass the registry's definitions as `tools` in each create() of the loop."],
    ["每个请求都要提供工具（`tools: registry.definitions()`）：模型只能调用它看得到的工具。", "在循环的每次 create() 中把注册表的定义作为 `tools` 传入。"],
  ),
  "results-in-order": r(
    "lesson",
    ["In this lesson the results of a turn come back in the order the model asked, however the calls finish (the API takes any order; the lesson's runTools promises this one).", "Keep each result at its call's index: Promise.all over the batch (it keeps input order), or write results[i], never push as each call finishes."],
    ["本课中，一轮的结果按模型请求的顺序返回，无论调用以何种顺序完成（API 接受任意顺序；本课的 runTools 承诺这个顺序）。", "让每个结果留在其调用的位置：对批次用 Promise.all（它保持输入顺序），或写入 results[i]，不要在每个调用完成时 push。"],
  ),
  "max-tokens-retry": r(
    "lesson",
    ["A response cut off by max_tokens is neither stored nor run: the loop asks again once, with a larger max_tokens, and stops with max_tokens if that is cut off too.", "On the first max_tokens, raise maxTokens, remember you retried, and `continue` before you store the response; on a second, stop with the max_tokens outcome."],
    ["被 max_tokens 截断的响应既不保存也不运行：循环用更大的 max_tokens 重新请求一次，如果仍被截断就以 max_tokens 停止。", "第一次遇到 max_tokens 时，增大 maxTokens、记下已重试，并在保存响应之前 `continue`；第二次就以 max_tokens 结果停止。"],
  ),
  // ── s07–s12: the safety layer, streaming, events, sessions, recovery, the capstone ──
  // (one block per lesson range; s01–s06 and Part II keep theirs apart)
  "output-cap": r(
    "lesson",
    ["A tool's output is capped: what is kept stays under the cap, the rest is counted and said, and an output that never ends is stopped.", "Keep at most maxOutput characters, add a note with how many were cut, and kill the command once its output passes many times the cap."],
    ["工具输出有上限：保留的部分不超过上限，其余部分计数并注明，永不结束的输出要被停止。", "最多保留 maxOutput 个字符，附注被截掉的数量；输出超过上限很多倍时终止命令。"],
  ),
  "process-group": r(
    "lesson",
    ["A command that times out, is aborted or ends is stopped with everything it started: its whole process group, background children included.", "Start the shell as the leader of its own process group (detached) and kill the group (process.kill(-pid)), not only the shell."],
    ["超时、被中止或结束的命令要连同它启动的一切一起停止：整个进程组，包括后台子进程。", "让 shell 成为自己进程组的组长（detached），并终止整个进程组（process.kill(-pid)），而不只是 shell。"],
  ),
  "child-env": r(
    "lesson",
    ["A tool's process gets an environment built from an allow list: no API key, token, password or other secret of the agent reaches it.", "Copy only the variables on an allow list (PATH, HOME, LANG, …) and never one whose name looks secret; do not start from process.env and remove a few."],
    ["工具进程的环境由允许列表构建：代理的 API 密钥、令牌、密码等机密都不能传给它。", "只复制允许列表中的变量（PATH、HOME、LANG……），名称像机密的一律不复制；不要从 process.env 出发再删掉几个。"],
  ),
  "early-start": r(
    "lesson",
    ["Only a read-only call may start while the message still streams, and only when every call before it in that message is read-only too; the others run after the message ends.", "In the stream's tool-call handler, start the call only when the registry says it is read-only and no earlier call of this message was not."],
    ["只有只读调用才能在消息仍在流式传输时启动，并且该消息中它之前的每个调用也都必须是只读的；其他调用在消息结束后运行。", "在流的工具调用回调中，只有当注册表表明它是只读的、且本消息中之前没有非只读调用时才启动它。"],
  ),
  "run-tests-fixed": r(
    "lesson",
    ["run_tests runs one fixed program; the model only names a module, checked to be a plain name, and nothing else it sends reaches the command line.", "Build the command yourself (node --test and the test files you found); validate `module` with the tool's schema and refuse any other field."],
    ["run_tests 只运行一个固定的程序；模型只能给出模块名（校验为普通名称），它发送的其他内容都不能进入命令行。", "自己构造命令（node --test 加上你找到的测试文件）；用工具的 schema 校验 `module`，拒绝其他字段。"],
  ),
  "capstone-flags": r(
    "lesson",
    ["Each flag of the capstone is read and reaches the run: the workspace, the model, the guards (--max-turns, --budget, --timeout), --yes, --verbose, --trace, --resume and the task.", "Read every flag with parseArgs (a flag not given keeps its default: --yes is false) and pass each into the loop's options (optionsFrom)."],
    ["综合项目的每个参数都要被读取并作用于运行：工作区、模型、保护（--max-turns、--budget、--timeout）、--yes、--verbose、--trace、--resume 和任务。", "用 parseArgs 读取每个参数（未给出的保持默认值：--yes 为 false），并把每个都传入循环的选项（optionsFrom）。"],
  ),
  "program-exit": r(
    "lesson",
    ["The program ends every run with an exit code that says how it went (0 done, 1 stopped or failed, 2 a mistake in the flags), the cause in one line, and the transcript kept.", "Catch what ends a run by throwing, close the transcript (answer every tool_use), print one line and return exit code 1."],
    ["程序每次运行都以说明结果的退出码结束（0 完成，1 停止或失败，2 参数错误），原因用一行说明，并保留记录。", "捕获使运行抛出异常而结束的错误，补全记录（回答每个 tool_use），打印一行原因并返回退出码 1。"],
  ),
  "lesson-rule": r(
    "lesson",
    ["The behaviour the test's name describes.", "Read the test's name and the lesson's TODO for that part; run `npm run hint` for guiding questions."],
    ["测试名称所描述的行为。", "阅读测试名称和课程中该部分的 TODO；运行 `npm run hint` 获取引导问题。"],
  ),
  // ── Part II (s13–s17): the loop delegating and reaching out. Kept together, at the end. ──
  "cache-placement": r(
    "lesson",
    ["Every request marks its stable prefix (the last tool and the system prompt), the newest message and the last user message before it with cache_control; the message markers move forward each turn.", "Mark a copy of each request: the last tool definition, the system prompt as a text block, the newest message's last block (and the last user message before the newest one)."],
    ["每个请求都给稳定前缀（最后一个工具和系统提示）、最新的消息以及它之前的最后一条 user 消息加上 cache_control；消息上的标记每轮向前移动。", "在每个请求的副本上加标记：最后一个工具定义、作为文本块的系统提示、最新消息的最后一个块（以及最新消息之前的最后一条 user 消息）。"],
  ),
  "cache-max-four": r(
    "lesson",
    ["A request carries at most four cache_control markers: the API refuses a fifth.", "Place the markers afresh on a copy of every request (two fixed, two that move), so old ones never add up."],
    ["一个请求最多带四个 cache_control 标记：API 会拒绝第五个。", "每个请求都在副本上重新放标记（两个固定、两个移动），旧标记就不会累积。"],
  ),
  "cache-not-in-history": r(
    "lesson",
    ["Cache markers go on the request, never into the history: the transcript is the same with caching as without.", "Build the request's system, tools and messages as new arrays with marked copies of the blocks; leave `history` untouched."],
    ["缓存标记放在请求上，绝不放进 history：有无缓存，记录都相同。", "用新数组和加了标记的块副本构造请求的 system、tools 和 messages；不要改动 `history`。"],
  ),
  "cache-cost": r(
    "lesson",
    ["A turn's input is input_tokens plus cache writes plus cache reads; the share the cache served is its reads over that whole input.", "Add cache_creation_input_tokens and cache_read_input_tokens (either may be null) to input_tokens, and divide the reads by that sum."],
    ["一轮的输入是 input_tokens 加上缓存写入和缓存读取；缓存提供的比例是读取量除以这整个输入。", "把 cache_creation_input_tokens 和 cache_read_input_tokens（都可能为 null）加到 input_tokens 上，再用读取量除以这个和。"],
  ),
  "plan-one-in-progress": r(
    "lesson",
    ["The plan keeps at most one item in progress; a list that breaks a rule (two in progress, an unknown status, an empty or repeated step, more than MAX_ITEMS) is answered with is_error and the old plan stays.", "Check the model's whole list before it replaces the plan (the todo tool's schema: the statuses as z.enum, .max(MAX_ITEMS); Plan.update: one in progress, no empty or repeated step); throw a ToolError that names the rule, and keep the old list."],
    ["计划中最多只有一项处于进行中；违反规则的列表（两项进行中、未知状态、空的或重复的步骤、超过 MAX_ITEMS 项）以 is_error 回答，旧计划保持不变。", "在模型的整份列表替换计划之前先检查它（todo 工具的 schema：状态用 z.enum，.max(MAX_ITEMS)；Plan.update：只有一项进行中，没有空的或重复的步骤）；抛出说明规则的 ToolError，并保留旧列表。"],
  ),
  "plan-reminder": r(
    "lesson",
    ["A plan left untouched for N turns is recalled once, in a text block after that turn's tool results; not every turn, and not when nothing is open.", "Remind only when the plan has open items and N turns passed since it was written or last recalled; put the text after every tool_result of the message."],
    ["计划 N 轮未更新时提醒一次，放在该轮工具结果之后的文本块中；不是每轮都提醒，没有未完成项时也不提醒。", "只在计划有未完成项、且距上次写入或提醒已过 N 轮时提醒；把文本放在消息中所有 tool_result 之后。"],
  ),
  "plan-reminder-state": r(
    "lesson",
    ["A reminder carries the plan as it is at that turn: every item with its status (plan.render() then), not only that the plan is stale, nor an older copy of it.", "Build the reminder's text when it is sent, from the plan the loop holds now: the turns since it was written, then plan.render()."],
    ["提醒带着计划在那一轮的样子：每一项及其状态（当时的 plan.render()），而不只是说计划过时了，也不是它的旧副本。", "在发送提醒时，用循环此刻持有的计划来构造提醒文本：先说自写入以来过了几轮，再附上 plan.render()。"],
  ),
  "plan-owned": r(
    "lesson",
    ["The loop owns the plan: each good list from the todo tool replaces it, and the tool's result shows the plan back as the loop now holds it.", "In Plan.update, store the checked list (contents trimmed), note the turn, and return render(): the model reads its plan from the result."],
    ["计划归循环所有：todo 工具每发来一份合格的列表就替换它，工具结果把循环现在保存的计划展示回去。", "在 Plan.update 中保存检查过的列表（内容去掉首尾空白），记下轮次，并返回 render()：模型从结果中读到它的计划。"],
  ),
  "subagent-isolation": r(
    "lesson",
    ["A child runs on a fresh history holding only its prompt; only its final answer returns, as the task call's tool_result.", "Start the child's history with [{ role: \"user\", content: prompt }]; return the text of its last answer, and keep its transcript apart."],
    ["子循环在只含其提示的全新 history 上运行；只有它的最终回答作为 task 调用的 tool_result 返回。", "子循环的 history 以 [{ role: \"user\", content: prompt }] 开始；返回它最后回答的文本，它的记录单独保存。"],
  ),
  "subagent-tools": r(
    "lesson",
    ["A child gets only the tools it is given, and only read-only ones its parent has; any other is refused with is_error, nothing run.", "Check the names asked for against the parent's read-only tools before the child starts; build the child's registry from those names only."],
    ["子循环只能拿到分配给它的工具，且只能是父循环拥有的只读工具；其他的以 is_error 拒绝，什么都不运行。", "子循环开始前，把请求的名称与父循环的只读工具对照；只用这些名称构造子循环的注册表。"],
  ),
  "subagent-errors": r(
    "lesson",
    ["A child that stops on a guard or fails becomes an is_error result, never an exception in the parent.", "Catch the child's failure and turn it, and any outcome but done, into a ToolError that says why."],
    ["因保护机制停止或失败的子循环变成 is_error 结果，绝不在父循环中抛出异常。", "捕获子循环的失败，把它以及除 done 以外的任何结果转成说明原因的 ToolError。"],
  ),
  "subagent-budget": r(
    "lesson",
    ["The parent's budget counts every token its children spend, as they spend it, cache tokens included; a child may spend only its share of what is left.", "Pass each response's tokensOf(usage) up through onTokens, add what a child spends to the parent's guard.used, and give each child guards.tokenBudget = its share (CHILD_SHARE) of what the parent has left."],
    ["父循环的预算统计子循环花掉的每个 token，边花边算，包括缓存 token；子循环只能花掉剩余预算中属于它的那一份。", "通过 onTokens 把每个响应的 tokensOf(usage) 向上传，把子循环的花费加到父循环的 guard.used，并给每个子循环设置 guards.tokenBudget = 父循环剩余预算中它的份额（CHILD_SHARE）。"],
  ),
  "subagent-tokens-nested": r(
    "lesson",
    ["Counts add up across nested agents: every token a child, grandchild or deeper agent spends reaches each agent above it, once (its guard.used and what it passes up), at any depth.", "In the task tool's onTokens, add to the child's share (mine.spent) AND call opts.spend(n), which counts it in this agent's guard.used and passes it on up; never count a child's tokens in the guard alone."],
    ["嵌套的代理之间计数要对得上：子代理、孙代理或更深层代理花的每个 token，都要恰好一次地到达它上面的每个代理（它的 guard.used 以及它向上传的数），无论嵌套多深。", "在 task 工具的 onTokens 中，既要加到子代理的份额（mine.spent），也要调用 opts.spend(n)：它计入本代理的 guard.used 并继续向上传；不要只把子代理的 token 记在 guard 里。"],
  ),
  "subagent-depth": r(
    "lesson",
    ["Agents nest at most maxDepth deep: an agent at maxDepth gets no task tool.", "Add the task tool only while depth < maxDepth; a child runs at its parent's depth + 1."],
    ["代理最多嵌套 maxDepth 层：处于 maxDepth 的代理没有 task 工具。", "只在 depth < maxDepth 时添加 task 工具；子循环的深度是父循环的 depth + 1。"],
  ),
  "skill-front-matter": r(
    "lesson",
    ["A SKILL.md's front matter is parsed as YAML and checked (name, description); a broken file is reported by name and left out.", "Split the front matter at its \"---\" lines, parse it with the yaml library, check it with the zod schema, and throw a SkillError that names the file."],
    ["SKILL.md 的 front matter 按 YAML 解析并检查（name、description）；损坏的文件按名称报告并略过。", "在 \"---\" 行处分出 front matter，用 yaml 库解析，用 zod schema 检查，并抛出指明文件的 SkillError。"],
  ),
  "skills-disclosure": r(
    "lesson",
    ["The system prompt lists each skill's name and description, never its body: bodies come from load_skill, on demand.", "Append one line per skill (name: description) to the system prompt; return the body only from the load_skill tool."],
    ["系统提示只列出每个技能的名称和描述，绝不包含正文：正文按需由 load_skill 返回。", "在系统提示后每个技能追加一行（名称: 描述）；正文只从 load_skill 工具返回。"],
  ),
  "skill-load": r(
    "lesson",
    ["load_skill returns the body of the skill asked for; an unknown name is an is_error result listing the skills there are.", "Look the name up among the skills; return its body, or throw a ToolError with the list of names."],
    ["load_skill 返回所请求技能的正文；未知名称返回 is_error 结果并列出现有技能。", "在技能中查找该名称；返回它的正文，或抛出附带名称列表的 ToolError。"],
  ),
  "mcp-tools": r(
    "lesson",
    ["An MCP server's tools reach the API as `mcp__<server>__<tool>`, with the server's own JSON Schema and a name the API accepts.", "Name each tool `mcp__<server>__<tool>` (only a-z, A-Z, 0-9, _ and -, at most 128 characters) and pass its inputSchema as input_schema."],
    ["MCP 服务器的工具以 `mcp__<server>__<tool>` 的名称、服务器自己的 JSON Schema 提供给 API，名称须为 API 接受的格式。", "把每个工具命名为 `mcp__<server>__<tool>`（只用 a-z、A-Z、0-9、_ 和 -，最多 128 个字符），并把 inputSchema 作为 input_schema。"],
  ),
  "mcp-results": r(
    "lesson",
    ["An MCP result becomes a tool_result: text and images as blocks, isError as is_error, never empty.", "Map each content item to a text or image block, set is_error when isError is true, and say something when there is no content."],
    ["MCP 结果转成 tool_result：文本和图片成为块，isError 成为 is_error，内容绝不为空。", "把每个内容项映射为文本或图片块，isError 为 true 时设置 is_error，没有内容时也要写点说明。"],
  ),
  "mcp-errors": r(
    "lesson",
    ["A server that hangs, crashes or does not start is an is_error result or a reported problem, never an exception in the loop.", "Give each call a time limit, catch the client's errors and turn them into is_error results; report a server that did not start and go on."],
    ["挂起、崩溃或无法启动的服务器成为 is_error 结果或被报告的问题，绝不在循环中抛出异常。", "给每个调用设置时间限制，捕获客户端错误并转成 is_error 结果；报告无法启动的服务器，然后继续。"],
  ),
  "mcp-released": r(
    "lesson",
    ["Resources the run started are released before it returns: by the time runAgent settles (done, stopped or thrown), every MCP server it started has stopped; a close still under way is a server left running.", "In runAgent's finally, await started?.close() (and anything else the run opened), so the run's promise settles only after they are gone."],
    ["运行启动的资源在它返回之前释放：runAgent 结束时（完成、停止或抛错），它启动的每个 MCP 服务器都已经停止；仍在关闭中的服务器就是还在运行的服务器。", "在 runAgent 的 finally 中 await started?.close()（以及运行打开的其他资源），这样运行的 promise 只在它们都结束之后才完成。"],
  ),
  "mcp-close": r(
    "lesson",
    ["The MCP servers a run started are stopped when it ends: done, stopped by a guard, or thrown; servers handed to it (opts.mcp) are the caller's and keep running.", "Run the loop inside try { … } finally { await started?.close() }, closing only the servers runAgent started itself."],
    ["一次运行启动的 MCP 服务器在运行结束时停止：完成、被保护机制停止或抛出异常都一样；交给它的服务器（opts.mcp）属于调用者，继续运行。", "把循环放进 try { … } finally { await started?.close() }，只关闭 runAgent 自己启动的服务器。"],
  ),
  "final-agent": r(
    "lesson",
    ["`npm run agent` runs the latest loop: a task done offline exits 0; a bad flag or config is one line and exit 2.", "Check the flags before the run; on a UsageError or a config error print its message and return exit code 2."],
    ["`npm run agent` 运行最新的循环：离线完成任务时退出码为 0；错误的参数或配置输出一行并以 2 退出。", "运行前检查参数；遇到 UsageError 或配置错误时打印其信息并返回退出码 2。"],
  ),
  // ── the net under the rules: your loop beside the reference (tests/differential/net.ts) ──
  "net-requests": r(
    "net",
    ["On the same model answers, your loop sends the requests the reference solution sends: the same messages, each tool_use answered as the reference answers it (ids, the wording of your own notes and error texts, and the order of results in one message aside).", "Read the request and the message the net names, and what the reference sent there beside what yours sent; fix the step of your loop that builds that message (the smallest case it found is shown: run it in your head through your loop)."],
    ["在相同的模型回答下，你的循环发出的请求与参考答案相同：消息一样，每个 tool_use 的回答方式与参考答案一样（id、你自己写的提示和错误文字、同一条消息里结果的顺序除外）。", "查看检查指出的请求和消息，对照参考答案在那里发出的内容与你发出的内容；修正循环中构造那条消息的步骤（检查会给出它找到的最小情形：在脑中让它走一遍你的循环）。"],
  ),
  "net-outcome": r(
    "net",
    ["On the same model answers, your loop ends where the reference ends and as it ends: it returns (or throws) after the same request, with the same outcome (its status and reason, or the final message's stop_reason).", "Compare the outcome the net shows with yours: return the outcome the lesson asks for at that stop, and let nothing the lesson handles escape as a throw."],
    ["在相同的模型回答下，你的循环与参考答案在同一处、以同样方式结束：在同一个请求之后返回（或抛出），结果相同（状态和原因，或最后一条消息的 stop_reason）。", "对照检查给出的结果与你的结果：在那个停止处返回课程要求的结果，课程要求处理的情况不要变成异常抛出。"],
  ),
  "net-events": r(
    "net",
    ["On the same model answers, your loop emits the events the reference emits (s09 on): one THINK per response with that turn's number and that turn's usage, an ACT and an OBSERVE per call, one STOP with the outcome and the run's totals (times aside).", "Look at the first event the net names and at the ones before it: a THINK carries the turn it belongs to and the usage of that response alone (the running total goes in STOP)."],
    ["在相同的模型回答下，你的循环发出的事件与参考答案相同（s09 起）：每个响应一个 THINK，带该回合的编号和该回合自己的用量；每个调用一个 ACT 和一个 OBSERVE；最后一个 STOP，带结果和整次运行的总计（时间除外）。", "查看检查指出的第一个事件及其之前的事件：THINK 带的是它所属的回合编号和这一个响应自己的用量（累计总数放在 STOP 里）。"],
  ),
  "net-effects": r(
    "net",
    ["On the same model answers, your loop runs the tool calls that change things exactly when the reference runs them (none more, none fewer), and leaves no tool still running when it returns.", "Run a call only in a turn whose stop_reason is tool_use and only once per tool_use block; when the loop stops, stop (abort) and await every call it started."],
    ["在相同的模型回答下，你的循环执行会改变状态的工具调用，与参考答案完全一致（不多也不少），返回时不留下仍在运行的工具。", "只在 stop_reason 为 tool_use 的回合里执行调用，每个 tool_use 块只执行一次；循环停止时，停止（abort）并等待它启动的每个调用结束。"],
  ),
} satisfies Record<string, RuleEntry>;

/** The rules of a lesson that registers itself (its course.json, "rules"): all of stage "lesson". */
function registeredRules(): Record<string, RuleEntry> {
  const out: Record<string, RuleEntry> = {};
  for (const reg of registrations()) {
    for (const [id, entry] of Object.entries(reg.rules)) {
      if (Object.hasOwn(LISTED, id) || Object.hasOwn(out, id)) throw new Error(`${reg.file}: the rule id "${id}" is taken already: choose another`);
      out[id] = entry;
    }
  }
  return out;
}

/**
 * A rule id: one of the ids above (checked by the type), or one a lesson registers (checked when
 * the tests run: tests/runtime/lesson-assertions.test.ts names an id that is in no catalog).
 */
export type RuleId = keyof typeof LISTED | (string & {});

/** The languages whose words live in runtime/i18n/rules.<lang>.json. */
const FILED_LANGS = ["ja", "ru"] as const;

/**
 * Each rule with the words of the filed languages added (a course.json's own words win). A file
 * that does not parse, or an entry without both sentences, is a mistake in the course, named.
 */
function withFiledWords(rules: Record<string, RuleEntry>): Record<string, RuleEntry> {
  const out: Record<string, RuleEntry> = {};
  const filed = Object.fromEntries(FILED_LANGS.map((lang) => [lang, readFiled(lang)])) as Record<(typeof FILED_LANGS)[number], Record<string, Words>>;
  for (const [id, entry] of Object.entries(rules)) {
    const more: Partial<RuleEntry> = {};
    for (const lang of FILED_LANGS) {
      const w = entry[lang] ?? filed[lang][id];
      if (w) more[lang] = w;
    }
    out[id] = { ...entry, ...more };
  }
  return out;
}

function readFiled(lang: string): Record<string, Words> {
  const file = new URL(`./i18n/rules.${lang}.json`, import.meta.url);
  if (!existsSync(file)) return {};
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`runtime/i18n/rules.${lang}.json does not parse: ${(e as Error).message}`);
  }
  const out: Record<string, Words> = {};
  for (const [id, w] of Object.entries(data as Record<string, Partial<Words>>)) {
    if (id.startsWith("$")) continue;
    if (typeof w?.what !== "string" || typeof w?.fix !== "string" || !w.what.trim() || !w.fix.trim())
      throw new Error(`runtime/i18n/rules.${lang}.json: "${id}" needs both "what" and "fix", each a sentence`);
    out[id] = { what: w.what, fix: w.fix };
  }
  return out;
}

/** The catalog: the rules above, then those the lessons register, in lesson order. */
export const RULES: Record<RuleId, RuleEntry> = withFiledWords({ ...LISTED, ...registeredRules() });

export function isRuleId(id: string): id is RuleId {
  return Object.hasOwn(RULES, id);
}

/**
 * The learner's language, the one place it is chosen: COURSE_LANG, else the locale (LC_ALL,
 * LC_MESSAGES, LANG), the first of them that is set; a language of COURSE_LANGS by its code
 * (`zh`, `zh_CN.UTF-8`, `zh-TW` → zh), anything else English.
 */
export function courseLang(env: NodeJS.ProcessEnv = process.env): Lang {
  const pick = (env.COURSE_LANG || env.LC_ALL || env.LC_MESSAGES || env.LANG || "").toLowerCase();
  return COURSE_LANGS.find((l) => pick === l || new RegExp(`^${l}[-_.@]`).test(pick)) ?? "en";
}

/** Words in the learner's language: `say({ en: "…", zh: "…" })`; English where a language has none. */
export function say<T>(words: { en: T } & Partial<Record<Lang, T>>, lang: Lang = courseLang()): T {
  return words[lang] ?? words.en;
}

/** A rule's entry; an id in no catalog is a mistake in the course, named. */
export function ruleEntry(id: RuleId): RuleEntry {
  const entry = RULES[id];
  if (!entry) throw new Error(`"${id}" is not a rule of runtime/rules.ts or of a lesson's course.json`);
  return entry;
}

export function ruleWords(id: RuleId, lang: Lang = courseLang()): Words {
  return say(ruleEntry(id) as { en: Words } & Partial<Record<Lang, Words>>, lang);
}

export function ruleStage(id: string): Stage | undefined {
  return isRuleId(id) ? ruleEntry(id).stage : undefined;
}

/** The pairing rule behind an API refusal (the scripted model uses the API's own messages). */
export function ruleOfApiMessage(msg: string): RuleId {
  // A field the API does not take, or of the wrong type, is about the field, whatever block it is in.
  if (/Extra inputs are not permitted|Input should be a valid/.test(msg)) return "api-rejected";
  if (/without `?tool_result`? blocks immediately after/.test(msg)) return "unanswered-tool-use";
  if (/unexpected `?tool_use_id`?/.test(msg)) return "orphan-result";
  if (/single result|multiple `?tool_result`?/.test(msg)) return "duplicate-result";
  if (/ids must be unique/.test(msg)) return "duplicate-tool-use-id";
  if (/non-empty content/.test(msg)) return "empty-message";
  if (/text content blocks must/.test(msg)) return "empty-text";
  if (/can only be in/.test(msg)) return "wrong-role-block";
  if (/thinking|signature/.test(msg)) return "not-verbatim";
  if (/content cannot be empty if `?is_error`?/.test(msg)) return "error-result-empty";
  if (/alternate|consecutive/.test(msg)) return "roles-alternate";
  if (/requests already answered and the loop keeps calling/.test(msg)) return "stop-when-done";
  return "api-rejected";
}

