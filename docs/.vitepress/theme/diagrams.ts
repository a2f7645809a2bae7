/**
 * One picture per lesson, as data: boxes on a grid and arrows between them, every label in
 * English and Chinese, and in Japanese and Russian (`w(en, zh, ja, ru)`; English where one is missing). IdeaDiagram.vue draws them as SVG (text stays text: searchable, translatable, sharp).
 * Lesson pages get their lesson's picture under the first paragraph automatically
 * (scripts/docs/pages.ts), and the home page's syllabus shows it too. A new lesson needs one entry
 * here, keyed by its folder; a lesson without one is named by the browser test.
 */

/** A label in every language of the site (langs.ts); ja and ru fall back to English where missing. */
export interface Words {
  en: string;
  zh: string;
  ja?: string;
  ru?: string;
}

export type BoxKind = "user" | "assistant" | "call" | "tool" | "done" | "error" | "guard" | "safe" | "plain";

export interface Box {
  id: string;
  /** Grid column and row (0-based); `span`/`rows` widen or heighten the box over more cells. */
  col: number;
  row: number;
  span?: number;
  rows?: number;
  label: Words;
  sub?: Words;
  kind?: BoxKind;
  /** A monospace label (code). */
  mono?: boolean;
}

export interface Arrow {
  from: string;
  to: string;
  label?: Words;
  /** Drawn dashed: the way back round the loop. */
  back?: boolean;
  /** Leave and enter on this side, running along it (a loop's way back); "below" runs under every box. */
  side?: "left" | "right" | "below";
}

export interface Diagram {
  title: Words;
  caption: Words;
  cols: number;
  rows: number;
  boxes: Box[];
  arrows: Arrow[];
  /** A label along the bottom, under the columns (a time line's axis). */
  axis?: Words;
}

const w = (en: string, zh: string, ja?: string, ru?: string): Words => ({ en, zh, ...(ja ? { ja } : {}), ...(ru ? { ru } : {}) });

export const DIAGRAMS: Record<string, Diagram> = {
  s01_agent_loop: {
    title: w("The agent loop", "Agent 循环"),
    caption: w('The loop goes round until stop_reason is not "tool_use".', "循环一直转，直到 stop_reason 不再是 \"tool_use\"。"),
    cols: 2,
    rows: 4,
    boxes: [
      { id: "task", col: 0, row: 0, label: w("user: the task", "user：任务"), kind: "user" },
      { id: "call", col: 0, row: 1, label: w("messages.create()", "messages.create()"), sub: w("append the reply unchanged", "原样追加回复"), kind: "call", mono: true },
      { id: "tools", col: 0, row: 2, label: w("run each tool_use", "运行每个 tool_use"), kind: "tool" },
      { id: "results", col: 0, row: 3, label: w("ONE user message", "同一条 user 消息"), sub: w("a tool_result per id", "每个 id 一个 tool_result"), kind: "user" },
      { id: "done", col: 1, row: 1, label: w("done", "结束"), sub: w("return the response", "返回这次响应"), kind: "done" },
    ],
    arrows: [
      { from: "task", to: "call" },
      { from: "call", to: "tools", label: w("tool_use", "tool_use") },
      { from: "call", to: "done", label: w("any other", "其他") },
      { from: "tools", to: "results" },
      { from: "results", to: "call", back: true, side: "left" },
    ],
  },
  s02_tool_dispatch: {
    title: w("Dispatch by name", "按名字分派"),
    caption: w(
      "One registry: the API's tool list, and the handler for each call; an unknown name is answered, never thrown.",
      "一个注册表：既给出 API 的工具列表，也为每个调用找到处理函数；未知的名字得到回答，而不是抛出异常。",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "use", col: 0, row: 1, label: w("tool_use", "tool_use"), sub: w("{ id, name, input }", "{ id, name, input }"), kind: "assistant", mono: true },
      { id: "reg", col: 1, row: 1, label: w("registry.dispatch()", "registry.dispatch()"), sub: w("look the name up", "按名字查找"), kind: "call", mono: true },
      { id: "defs", col: 1, row: 0, label: w("registry.definitions()", "registry.definitions()"), sub: w("tools: [...] of every request", "每次请求的 tools: [...]"), kind: "plain", mono: true },
      { id: "run", col: 2, row: 0, label: w("read_file · edit_file · bash …", "read_file · edit_file · bash …"), sub: w("tool.run(input, ctx)", "tool.run(input, ctx)"), kind: "tool" },
      { id: "unknown", col: 1, row: 2, label: w("no such tool", "没有这个工具"), sub: w("is_error: the tools that exist", "is_error：列出现有的工具"), kind: "error" },
      { id: "result", col: 2, row: 2, label: w("tool_result", "tool_result"), sub: w("tool_use_id = the call's id", "tool_use_id = 调用的 id"), kind: "user", mono: true },
    ],
    arrows: [
      { from: "use", to: "reg" },
      { from: "defs", to: "reg", label: w("same objects", "同一组对象") },
      { from: "reg", to: "run", label: w("found", "找到") },
      { from: "reg", to: "unknown", label: w("unknown", "未知") },
      { from: "run", to: "result" },
      { from: "unknown", to: "result" },
    ],
  },
  s03_parallel_tools: {
    title: w("Batches on a time line", "时间线上的批次"),
    caption: w(
      "Read-only calls side by side run at the same time; a write runs alone; the answers go back in ONE message, in the order asked.",
      "相邻的只读调用同时运行；写操作单独运行；所有回答按提问的顺序放进同一条消息。",
    ),
    cols: 3,
    rows: 3,
    axis: w("time →", "时间 →"),
    boxes: [
      { id: "a", col: 0, row: 0, label: w("A read_file log", "A read_file 日志"), sub: w("read-only: together", "只读：同时运行"), kind: "tool" },
      { id: "b", col: 0, row: 1, label: w("B read_file source", "B read_file 源码"), sub: w("read-only: together", "只读：同时运行"), kind: "tool" },
      { id: "c", col: 1, row: 0, rows: 2, label: w("C edit_file", "C edit_file"), sub: w("writes: alone", "会写入：单独运行"), kind: "guard" },
      { id: "d", col: 2, row: 0, rows: 2, label: w("D bash: run tests", "D bash：运行测试"), sub: w("not read-only: alone", "不是只读：单独运行"), kind: "guard" },
      { id: "msg", col: 0, row: 2, span: 3, label: w("ONE user message: results A, B, C, D", "同一条 user 消息：结果 A、B、C、D"), sub: w("in the order asked, whoever finished first", "按提问的顺序，不管谁先完成"), kind: "user" },
    ],
    arrows: [
      { from: "a", to: "c" },
      { from: "b", to: "c" },
      { from: "c", to: "d" },
      { from: "d", to: "msg" },
    ],
  },
  s04_tool_errors: {
    title: w("Errors are observations", "错误也是观察结果"),
    caption: w(
      "Whatever happens, the call gets a tool_result; a failure is one with is_error, and the model acts on it.",
      "无论发生什么，调用都会得到一个 tool_result；失败就是带 is_error 的结果，模型据此调整。",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "use", col: 0, row: 0, label: w("tool_use", "tool_use"), sub: w("input from the model", "来自模型的输入"), kind: "assistant", mono: true },
      { id: "schema", col: 1, row: 0, label: w("input fits the schema?", "输入符合 schema？"), sub: w("zod", "zod"), kind: "guard" },
      { id: "run", col: 2, row: 0, label: w("run it, with a deadline", "带时限地运行"), kind: "tool" },
      { id: "bad", col: 0, row: 1, label: w("is_error: what was wrong", "is_error：哪里不对"), sub: w("nothing ran", "什么都没运行"), kind: "error" },
      { id: "threw", col: 1, row: 1, label: w("is_error: threw / too slow", "is_error：抛出异常 / 超时"), sub: w("the tool is told to stop", "工具收到停止信号"), kind: "error" },
      { id: "ok", col: 2, row: 1, label: w("tool_result", "tool_result"), sub: w("its output", "它的输出"), kind: "user", mono: true },
      { id: "next", col: 0, row: 2, span: 3, label: w("every call answered: the model reads it and tries again", "每个调用都有回答：模型读到它，再试一次"), kind: "assistant" },
    ],
    arrows: [
      { from: "use", to: "schema" },
      { from: "schema", to: "run", label: w("yes", "是") },
      { from: "schema", to: "bad", label: w("no", "否") },
      { from: "run", to: "ok", label: w("works", "成功") },
      { from: "run", to: "threw", label: w("fails", "失败") },
      { from: "bad", to: "next" },
      { from: "threw", to: "next" },
      { from: "ok", to: "next" },
    ],
  },
  s05_stop_reasons: {
    title: w("The stop_reason decision", "按 stop_reason 决定"),
    caption: w("Every stop_reason has its own answer; only end_turn is success.", "每个 stop_reason 都有自己的处理；只有 end_turn 才算成功。"),
    cols: 3,
    rows: 5,
    boxes: [
      { id: "resp", col: 0, row: 2, label: w("the response", "这次响应"), sub: w("response.stop_reason", "response.stop_reason"), kind: "assistant" },
      { id: "end", col: 2, row: 0, label: w("done", "完成"), sub: w("store the answer", "保存回答"), kind: "done" },
      { id: "tool", col: 2, row: 1, label: w("run the tools, go round", "运行工具，再来一轮"), kind: "tool" },
      { id: "max", col: 2, row: 2, label: w("cut off: run nothing", "被截断：什么都不运行"), sub: w("ask again with more max_tokens", "用更大的 max_tokens 重问"), kind: "guard" },
      { id: "pause", col: 2, row: 3, label: w("send the turn back", "把这一轮发回去"), sub: w("the model goes on", "模型继续"), kind: "call" },
      { id: "other", col: 2, row: 4, label: w("stopped, with the reason", "停止，并说明原因"), kind: "error" },
    ],
    arrows: [
      { from: "resp", to: "end", label: w("end_turn", "end_turn") },
      { from: "resp", to: "tool", label: w("tool_use", "tool_use") },
      { from: "resp", to: "max", label: w("max_tokens", "max_tokens") },
      { from: "resp", to: "pause", label: w("pause_turn", "pause_turn") },
      { from: "resp", to: "other", label: w("refusal · stop_sequence · …", "refusal · stop_sequence · …") },
    ],
  },
  s06_guards: {
    title: w("Guard checkpoints", "防护检查点"),
    caption: w(
      "The loop stops itself at a checkpoint, and only where every tool_use already has its answer.",
      "循环在检查点自己停下，而且只在每个 tool_use 都已有回答的地方停。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "g1", col: 0, row: 0, label: w("before a request", "请求之前"), sub: w("turns · tokens · deadline", "轮数 · token · 时限"), kind: "guard" },
      { id: "call", col: 1, row: 0, label: w("messages.create()", "messages.create()"), kind: "call", mono: true },
      { id: "tools", col: 2, row: 0, label: w("run the tools", "运行工具"), sub: w("every call answered", "每个调用都有回答"), kind: "tool" },
      { id: "g2", col: 2, row: 1, label: w("the same call again?", "同一个调用又来了？"), sub: w("name + input repeated", "名字和输入都重复"), kind: "guard" },
      { id: "halt", col: 1, row: 1, label: w("halted: the reason", "停止：说明原因"), sub: w("transcript can be sent again", "对话记录可以再次发送"), kind: "error" },
    ],
    arrows: [
      { from: "g1", to: "call", label: w("ok", "通过") },
      { from: "call", to: "tools" },
      { from: "tools", to: "g2" },
      { from: "g2", to: "halt", label: w("repeat", "重复") },
      { from: "g1", to: "halt", label: w("over a limit", "超出限制") },
      { from: "g2", to: "g1", back: true, side: "below", label: w("next turn", "下一轮") },
    ],
  },
  s07_safe_tools: {
    title: w("Two layers", "两层防护"),
    caption: w(
      "The tools' own checks catch mistakes early and explain them; the boundary that holds is the one the operating system enforces.",
      "工具自己的检查尽早发现错误并说明原因；真正挡得住的，是操作系统强制执行的边界。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "call", col: 0, row: 0, label: w("a tool call", "一次工具调用"), sub: w("path or command from the model", "来自模型的路径或命令"), kind: "assistant" },
      { id: "checks", col: 1, row: 0, label: w("1 · the tools' checks", "1 · 工具自己的检查"), sub: w("real path in the workspace? approved?", "真实路径在工作区内？已批准？"), kind: "guard" },
      { id: "box", col: 2, row: 0, label: w("2 · the sandbox", "2 · 沙箱"), sub: w("the kernel limits what it reaches", "由内核限制它能碰到什么"), kind: "safe" },
      { id: "refused", col: 1, row: 1, label: w("is_error: refused", "is_error：拒绝"), sub: w("says why and what to do", "说明原因和该怎么做"), kind: "error" },
      { id: "runs", col: 2, row: 1, label: w("runs", "运行"), sub: w("clean env · output cap · timeout", "干净环境 · 输出上限 · 超时"), kind: "tool" },
    ],
    arrows: [
      { from: "call", to: "checks" },
      { from: "checks", to: "box", label: w("passes", "通过") },
      { from: "checks", to: "refused", label: w("no", "否") },
      { from: "box", to: "runs" },
    ],
  },
  s08_streaming: {
    title: w("Stream events and an early start", "流式事件和提前启动"),
    caption: w(
      "A read-only call starts at its block's content_block_stop, while the message is still streaming; the transcript is the same.",
      "只读调用在它的块收到 content_block_stop 时就启动，此时消息还在流式传来；对话记录不变。",
    ),
    cols: 3,
    rows: 2,
    axis: w("time →", "时间 →"),
    boxes: [
      { id: "text", col: 0, row: 0, label: w("text_delta …", "text_delta …"), sub: w("after message_start: printed as it arrives", "message_start 后随到随打印"), kind: "assistant", mono: true },
      { id: "json", col: 1, row: 0, label: w("input_json_delta …", "input_json_delta …"), sub: w("content_block_stop: the call is known", "content_block_stop：调用已知"), kind: "assistant", mono: true },
      { id: "stop", col: 2, row: 0, label: w("message_stop", "message_stop"), sub: w("stop_reason: tool_use", "stop_reason：tool_use"), kind: "call", mono: true },
      { id: "early", col: 1, row: 1, span: 2, label: w("the read-only tool is already running", "只读工具已经在运行"), sub: w("its result is ready sooner", "它的结果更早就绪"), kind: "tool" },
    ],
    arrows: [
      { from: "text", to: "json" },
      { from: "json", to: "stop" },
      { from: "json", to: "early", label: w("start early", "提前启动") },
    ],
  },
  s09_observability: {
    title: w("Events and where they go", "事件及其去向"),
    caption: w("The loop emits one typed event per step; listeners decide what to do with it.", "循环每一步发出一个有类型的事件；由监听者决定如何处理。"),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "loop", col: 0, row: 1, label: w("the loop", "循环"), sub: w("emit(event)", "emit(event)"), kind: "call" },
      { id: "events", col: 1, row: 1, label: w("think · act · observe · stop", "think · act · observe · stop"), sub: w("usage and cost per turn", "每轮的用量和费用"), kind: "assistant", mono: true },
      { id: "log", col: 2, row: 0, label: w("logger", "日志"), sub: w("one line per event", "每个事件一行"), kind: "plain" },
      { id: "jsonl", col: 2, row: 1, label: w(".course/runs/*.jsonl", ".course/runs/*.jsonl"), sub: w("replay it in the player", "可以在播放器里回放"), kind: "user", mono: true },
      { id: "trace", col: 2, row: 2, label: w("--trace table", "--trace 表格"), kind: "plain", mono: true },
    ],
    arrows: [
      { from: "loop", to: "events" },
      { from: "events", to: "log" },
      { from: "events", to: "jsonl" },
      { from: "events", to: "trace" },
    ],
  },
  s10_conversation: {
    title: w("A session's life", "一个会话的生命周期"),
    caption: w(
      "One history across questions, saved after every turn; Ctrl-C ends the turn, not the session.",
      "多个问题共用一份历史，每轮之后保存；Ctrl-C 结束的是这一轮，而不是整个会话。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "ask", col: 0, row: 0, label: w("> a question", "> 一个问题"), sub: w("appended to the history", "追加到历史"), kind: "user" },
      { id: "turn", col: 1, row: 0, label: w("the agent loop", "Agent 循环"), sub: w("one turn", "一轮"), kind: "call" },
      { id: "save", col: 2, row: 0, label: w("save the session", "保存会话"), sub: w("resume it later, word for word", "以后原样恢复"), kind: "done" },
      { id: "cancel", col: 1, row: 1, label: w("Ctrl-C", "Ctrl-C"), sub: w("abort; leave a whole history", "中止；留下完整的历史"), kind: "error" },
    ],
    arrows: [
      { from: "ask", to: "turn" },
      { from: "turn", to: "save" },
      { from: "turn", to: "cancel" },
      { from: "cancel", to: "save" },
      { from: "save", to: "ask", back: true, side: "below", label: w("next question", "下一个问题") },
    ],
  },
  s11_recovery: {
    title: w("Who recovers", "由谁来恢复"),
    caption: w(
      "The SDK retries what it can; the loop handles what only the history can fix: a broken stream, a full context.",
      "SDK 重试它能处理的；循环处理只有历史才能修复的：中断的流、装满的上下文。",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "req", col: 0, row: 1, label: w("a request fails", "一次请求失败"), kind: "error" },
      { id: "sdk", col: 1, row: 0, label: w("the SDK", "SDK"), sub: w("429 · 5xx · 529: back off, retry", "429 · 5xx · 529：退避重试"), kind: "call" },
      { id: "retry", col: 1, row: 1, label: w("the loop: send the turn again", "循环：重发这一轮"), sub: w("the stream broke; nothing appended", "流断了；什么都没追加"), kind: "tool" },
      { id: "compact", col: 1, row: 2, label: w("the loop: compact", "循环：压缩"), sub: w("prompt too long; pairs kept whole", "提示太长；配对保持完整"), kind: "guard" },
      { id: "go", col: 2, row: 1, label: w("the loop goes on", "循环继续"), kind: "done" },
    ],
    arrows: [
      { from: "req", to: "sdk" },
      { from: "req", to: "retry" },
      { from: "req", to: "compact" },
      { from: "sdk", to: "go" },
      { from: "retry", to: "go" },
      { from: "compact", to: "go" },
    ],
  },
  s12_guarded_agent: {
    title: w("The capstone's parts", "综合项目的组成"),
    caption: w("One command, every mechanism of the course around the same loop.", "一个命令，课程里的每个机制都围绕同一个循环。"),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "cli", col: 0, row: 1, label: w("npm run agent", "npm run agent"), sub: w("flags · task or REPL", "参数 · 任务或 REPL"), kind: "user", mono: true },
      { id: "loop", col: 1, row: 1, label: w("the loop", "循环"), sub: w("stream · guards · recovery", "流式 · 防护 · 恢复"), kind: "call" },
      { id: "tools", col: 2, row: 0, label: w("safe tools + run_tests", "安全工具 + run_tests"), sub: w("workspace · approval · sandbox", "工作区 · 批准 · 沙箱"), kind: "tool" },
      { id: "events", col: 2, row: 1, label: w("events", "事件"), sub: w("log · JSONL · cost", "日志 · JSONL · 费用"), kind: "plain" },
      { id: "session", col: 2, row: 2, label: w("session", "会话"), sub: w("saved, resumable", "已保存，可恢复"), kind: "done" },
    ],
    arrows: [
      { from: "cli", to: "loop" },
      { from: "loop", to: "tools" },
      { from: "loop", to: "events" },
      { from: "loop", to: "session" },
    ],
  },
  s13_caching: {
    title: w("Where the cache breakpoints go", "缓存断点放在哪里"),
    caption: w(
      "The loop marks tools and system once and the newest message each turn: at most four marks, moved, never piled up.",
      "循环给工具和 system 标一次，每轮再标最新的消息：最多四个标记，只移动，从不堆积。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "tools", col: 0, row: 0, label: w("tools", "工具"), sub: w("mark 1: once", "标记 1：一次"), kind: "tool" },
      { id: "system", col: 1, row: 0, label: w("system", "system"), sub: w("mark 2: once", "标记 2：一次"), kind: "plain", mono: true },
      { id: "old", col: 2, row: 0, label: w("earlier messages", "更早的消息"), sub: w("read from the cache (0.1×)", "从缓存读取（0.1×）"), kind: "done" },
      { id: "new", col: 2, row: 1, label: w("newest message", "最新的消息"), sub: w("mark 3 moves here each turn", "标记 3 每轮移到这里"), kind: "user" },
      { id: "usage", col: 0, row: 1, span: 2, label: w("usage: cache reads and writes", "用量：缓存读取与写入"), sub: w("counted by s06's budget", "计入 s06 的预算"), kind: "guard" },
    ],
    arrows: [
      { from: "tools", to: "system" },
      { from: "system", to: "old" },
      { from: "old", to: "new" },
      { from: "new", to: "usage" },
    ],
  },
  s14_planning: {
    title: w("A plan the loop owns", "由循环掌管的计划"),
    caption: w(
      "The model rewrites the todo list; when the plan goes stale, a reminder follows the turn's tool results, never before them.",
      "模型重写 todo 列表；计划久未更新时，提醒放在这一轮的工具结果之后，绝不放在它们之前。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "call", col: 0, row: 0, label: w("todo tool call", "todo 工具调用"), sub: w("the whole list, rewritten", "整张列表重写"), kind: "call" },
      { id: "plan", col: 1, row: 0, label: w("the plan", "计划"), sub: w("at most one in progress", "最多一项进行中"), kind: "tool" },
      { id: "progress", col: 2, row: 0, label: w("progress shown", "显示进度"), kind: "done" },
      { id: "results", col: 0, row: 1, label: w("ONE user message", "同一条 user 消息"), sub: w("tool_result blocks first", "先放 tool_result 块"), kind: "user" },
      { id: "reminder", col: 1, row: 1, label: w("then the reminder", "然后是提醒"), sub: w("a text block, only when the plan is stale", "一个文本块，仅在计划久未更新时"), kind: "guard" },
      { id: "next", col: 2, row: 1, label: w("the next request", "下一次请求"), sub: w("the model sees its plan", "模型看到自己的计划"), kind: "call" },
    ],
    arrows: [
      { from: "call", to: "plan" },
      { from: "plan", to: "progress" },
      { from: "plan", to: "reminder", label: w("stale?", "久未更新？") },
      { from: "results", to: "reminder" },
      { from: "reminder", to: "next" },
    ],
  },
  s15_subagents: {
    title: w("A child loop per task", "每个任务一个子循环"),
    caption: w(
      "The task tool runs a child loop with a fresh history and fewer tools; only its final answer comes back as the tool_result.",
      "task 工具用全新的历史和更少的工具运行一个子循环；只有它的最终回答作为 tool_result 返回。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "parent", col: 0, row: 0, rows: 2, label: w("the parent loop", "父循环"), sub: w("its budget counts the children", "它的预算包括子循环"), kind: "call" },
      { id: "a", col: 1, row: 0, label: w("child A", "子循环 A"), sub: w("fresh history · read-only tools", "全新历史 · 只读工具"), kind: "tool" },
      { id: "b", col: 1, row: 1, label: w("child B", "子循环 B"), sub: w("runs beside A", "与 A 并行"), kind: "tool" },
      { id: "answer", col: 2, row: 0, label: w("final answer → tool_result", "最终回答 → tool_result"), kind: "done" },
      { id: "fail", col: 2, row: 1, label: w("a guard or a failure → is_error", "防护或失败 → is_error"), kind: "error" },
    ],
    arrows: [
      { from: "parent", to: "a" },
      { from: "parent", to: "b" },
      { from: "a", to: "answer" },
      { from: "b", to: "fail" },
    ],
  },
  s16_skills: {
    title: w("Skills on demand", "按需加载的技能"),
    caption: w(
      "The prompt lists each skill's name and description; load_skill brings a body only when the model asks for it.",
      "提示词只列出每个技能的名称和描述；只有模型要求时，load_skill 才取来正文。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "folders", col: 0, row: 0, label: w("skills/*/SKILL.md", "skills/*/SKILL.md"), sub: w("front matter: name, description", "前言：名称、描述"), kind: "plain", mono: true },
      { id: "prompt", col: 1, row: 0, label: w("system prompt", "系统提示词"), sub: w("names and descriptions only", "只有名称和描述"), kind: "user" },
      { id: "load", col: 2, row: 0, label: w("load_skill", "load_skill"), sub: w("the body, when asked", "需要时取来正文"), kind: "call", mono: true },
      { id: "small", col: 1, row: 1, label: w("the prompt stays small", "提示词保持很小"), sub: w("50 skills, a few hundred tokens", "50 个技能，几百个 token"), kind: "done" },
    ],
    arrows: [
      { from: "folders", to: "prompt" },
      { from: "prompt", to: "load" },
      { from: "prompt", to: "small" },
    ],
  },
  s17_mcp: {
    title: w("Tools from MCP servers", "来自 MCP 服务器的工具"),
    caption: w(
      "The loop lists a server's tools, names them mcp__server__tool, calls them, and turns every failure into an is_error result.",
      "循环列出服务器的工具，命名为 mcp__server__tool，调用它们，并把每个失败变成 is_error 结果。",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "config", col: 0, row: 0, label: w("mcpServers config", "mcpServers 配置"), sub: w("started over stdio", "通过 stdio 启动"), kind: "plain", mono: true },
      { id: "server", col: 1, row: 0, label: w("MCP server", "MCP 服务器"), sub: w("tools/list · tools/call", "tools/list · tools/call"), kind: "tool" },
      { id: "loop", col: 2, row: 0, label: w("the agent loop", "Agent 循环"), sub: w("mcp__notes__search", "mcp__notes__search"), kind: "call" },
      { id: "error", col: 1, row: 1, label: w("crash · hang · isError", "崩溃 · 挂起 · isError"), sub: w("→ an is_error tool_result", "→ 一个 is_error 的 tool_result"), kind: "error" },
      { id: "close", col: 2, row: 1, label: w("servers closed at the end", "结束时关闭服务器"), kind: "done" },
    ],
    arrows: [
      { from: "config", to: "server" },
      { from: "server", to: "loop" },
      { from: "server", to: "error" },
      { from: "error", to: "loop", label: w("answered", "得到回答") },
      { from: "loop", to: "close" },
    ],
  },
};

/** The lesson's picture, if it has one. */
export function diagramFor(dir: string): Diagram | undefined {
  return DIAGRAMS[dir];
}
