/**
 * The reliability report as markdown, in each language of the site, from the run's figures alone: a pure
 * function, so the pages can be rendered again from the figures they hold (`ReliabilityFigures`,
 * kept in the page's block as a comment) and the words tested without running anything.
 *
 * main.ts measures and calls `renderReliability(figures, "en")` for the terminal, and writes each
 * page's block in its own language (`reliabilityBlock`). Words come from the glossary
 * (docs/guide/glossary.md); identifiers (stop_reason, tool_use, is_error, 429, commands, lesson
 * ids, file paths) and what a learner sees on the screen stay as the tools print them.
 */
import type { SiteLang as Lang } from "../../docs/.vitepress/theme/langs.ts";
import { HOUSE_ATTACKS_ZH } from "./house-attacks.ts";
import type { Part3Figures, Part3Summary } from "./part3.ts";
import { HOOK_BEHAVIOURS_ZH, HOOK_KINDS_ZH, JOB_KINDS_ZH, P3_ATTACKS_ZH, P3_GROUPS_ZH, P3_NOTES_ZH, REWIND_PARTS_ZH, RULES_PROPERTIES_ZH, RUN_ENDS_ZH } from "./part3-words.ts";
import type { RowWords } from "./row-words.ts";
import { JA } from "./words-ja.ts";
import { RU } from "./words-ru.ts";

export type { SiteLang as Lang } from "../../docs/.vitepress/theme/langs.ts";

/**
 * A report's words in a language: English, then the language's own table (zh), then its own
 * headings and sentences (ja, ru). The rows' words are rowWords(lang): row-words.ts.
 */
export function wordsFor<T extends object>(table: { en: T } & Partial<Record<Lang, T>>, lang: Lang, heads: Partial<Record<Lang, Partial<T>>> = {}): T {
  return { ...table.en, ...(table[lang] ?? {}), ...(heads[lang] ?? {}) };
}

/** What the fuzzing checked for a lesson (its adapter's claims). */
export type ClaimKey = "unknown-is-error" | "unknown-answered" | "throws-is-error" | "every-stop-reason" | "stops-on-other" | "early-reads";
export type FaultCell = "recovered" | "clear stop" | "FAILED" | "n/a" | "?";
export type AttackCell = "n/a" | "not run" | "HUNG" | "ESCAPED" | "escapes (not claimed)" | "stopped";

export interface ReliabilityFigures {
  date: string;
  lessons: string[];
  missing: string[];
  fuzz: { per: number; rows: Array<{ lesson: string; runs: number; violations: number; crashes: number; ms_per_run: number; claims: ClaimKey[] }>; counterexamples: string[] } | null;
  faults: {
    lessons: string[];
    /** One row per fault case: its id (faults.ts), its words, the cell per lesson (retries 2, then off). */
    rows: Array<{ id: string; what: string; cells: Array<[FaultCell, FaultCell]> }>;
    failed: Array<{ lesson: string; fault: string; retries: number; detail: string }>;
  } | null;
  attacks: {
    corpus: number;
    /** null: a report from before the sandbox modes. */
    sandbox: "bubblewrap" | "none" | null;
    modes: string[];
    toolsets: Array<{ id: string; lessons: string[]; claims: boolean }>;
    columns: string[];
    rows: Array<{ what: string; group: string; cells: AttackCell[] }>;
    escaped: Array<{ what: string; column: string; detail: string }>;
    notes: Array<{ what: string; note: string; sandboxOnly?: boolean; claimed?: boolean }>;
  } | null;
  bad: Array<{ id: string; what: string; handled: boolean; detail: string }> | null;
  /** Part III (s18–s22): hooks, rules, jobs, rewind, attacks (part3.ts); absent in a report from before it. */
  part3?: Part3Figures | null;
  summary: {
    fuzz: { runs: number; invariant_violations: number; crashes: number };
    faults: { total: number; survived: number };
    attacks: { corpus?: number; tried: number; escaped: number; sandbox?: string; modes?: string[] };
    bad_inputs: { tried: number; handled: number };
    part3?: Part3Summary;
  };
}

// ── words ──

const CLAIMS: Record<ClaimKey, { en: string; zh: string } & Partial<Record<Lang, string>>> = {
  "unknown-is-error": { en: "unknown→is_error", zh: "未知工具→is_error" },
  "unknown-answered": { en: "unknown answered", zh: "未知工具也有回答" },
  "throws-is-error": { en: "throws, bad input, hangs→is_error", zh: "抛出异常、输入无效、卡住→is_error" },
  "every-stop-reason": { en: "every stop_reason, cut-off calls not run, Outcome", zh: "每种 stop_reason、被截断的调用不运行、Outcome" },
  "stops-on-other": { en: "stops on any stop_reason ≠ tool_use", zh: "stop_reason ≠ tool_use 时停止" },
  "early-reads": { en: "early reads stopped and thrown away unless tool_use", zh: "不是 tool_use 时，提前开始的读取被停止并丢弃" },
};

/** Fault cases by id (scripts/reliability/faults.ts). */
const FAULTS_ZH: Record<string, string> = {
  "429": "429 请求过多（rate limited），retry-after: 1",
  "500": "500 服务器内部错误",
  "529": "529 服务过载（overloaded）",
  "stream-error": "流式输出中途收到 `error` 事件",
  "stream-cut": "流在中途被切断",
  timeout: "延迟超过时限（3 秒对 300 毫秒）",
  abort: "用户在请求中途取消",
};

const FAULT_CELL_ZH: Record<FaultCell, string> = { recovered: "已恢复", "clear stop": "明确停止", FAILED: "失败", "n/a": "不适用", "?": "?" };
const ATTACK_CELL_ZH: Record<AttackCell, string> = { "n/a": "不适用", "not run": "未运行", HUNG: "挂起", ESCAPED: "逃逸", "escapes (not claimed)": "逃逸（未声称）", stopped: "已拦截" };

/** Bad inputs by id (scripts/reliability/bad-inputs.ts). */
const BAD_ZH: Record<string, string> = {
  "env-not-key-value": ".env 中有一行不是 KEY=value",
  "env-unclosed-quote": ".env 中的引号没有闭合",
  "env-binary": ".env 不是文本（含 NUL 字节）",
  "unknown-lesson-run": "npm run lesson s99（没有这一课）",
  "unknown-lesson-check": "npm run check banana（没有这一课）",
  "unknown-lesson-hint": "npm run hint s42（没有这一课）",
  "no-lesson-id": "npm run lesson（没给课号）",
  "unknown-command": "tsx scripts/course.ts frobnicate（未知命令）",
  "broken-lesson-run": "npm run lesson s01，练习里有语法错误",
  "broken-lesson-check": "npm run check s01，练习里有语法错误",
  "missing-lesson-file": "npm run lesson s01，练习文件被删除",
  "model-not-json-http": "POST /v1/messages，请求体不是 JSON（HTTP 服务器）",
  "model-not-json": "请求体不是 JSON（进程内）",
  "model-json-array": "请求体是 JSON，但不是对象",
  "model-no-messages": "请求里没有 messages",
  "model-unknown-fault": "未知的 x-scripted-fault 请求头",
  "offline-model-bad-port": "npm run offline-model -- --port banana（端口无效）",
};

const GROUPS_ZH: Record<string, string> = {
  traversal: "路径穿越",
  "absolute path": "绝对路径",
  symlink: "符号链接",
  "block-list bypass": "绕过黑名单",
  "output flood": "输出洪水",
  "outlives the call": "活得比调用久",
  secrets: "密钥",
  "s07 cases: files": "s07 用例：文件",
  "s07 cases: commands": "s07 用例：命令",
  "hard links": "硬链接",
  "FIFOs and devices": "FIFO 与设备文件",
  "env and /proc": "环境变量与 /proc",
  "options that defeat string checks": "绕过字符串检查的选项",
  "globs and recursion through symlinks": "经由符号链接的通配与递归",
  "check/open race": "检查与打开之间的竞争",
  "detached and double-forked processes": "脱离的、两次 fork 的进程",
  "tool chaining": "工具串联",
  "run_tests runs written code": "run_tests 运行写入的代码",
};

const TOOLSETS_ZH: Record<string, string> = { "runtime tools": "runtime 工具", "s07 safe tools": "s07 安全工具", "s12 tools": "s12 工具", "final agent (npm run agent)": "最终的 agent（npm run agent）", "s17 program (npm run agent)": "s17 程序（npm run agent）" };
/** A mode alone as a column's name (Part III's attacks). */
const MODES_ZH: Record<string, string> = { bubblewrap: "bubblewrap 沙箱", "bubblewrap --yes": "bubblewrap 沙箱 --yes", none: "无沙箱" };

/**
 * An attack's words in Chinese: the command or path stays as it is, the English around it is
 * translated phrase by phrase (s07's case names, the notes in parentheses). A phrase not listed
 * here stays English; tests/e2e/generators.test.ts lists the attacks of the current corpus that
 * have no translation.
 */
const ATTACK_PHRASES: Array<[RegExp, string]> = [
  // s07's case names (tests/attacks/s07_cases.ts)
  [/^parent directory after a real folder$/, "先进入一个真实文件夹，再回到上级目录"],
  [/^parent directory$/, "上级目录"],
  [/^many parents$/, "多层上级目录"],
  [/^absolute path outside$/, "工作区外的绝对路径"],
  [/^absolute system file$/, "绝对路径的系统文件"],
  [/^home directory$/, "主目录"],
  [/^symlink to a file outside$/, "指向外部文件的符号链接"],
  [/^symlinked folder outside$/, "指向外部的符号链接文件夹"],
  [/^chain of symlinks$/, "符号链接链"],
  [/^NUL byte in the path$/, "路径中有 NUL 字节"],
  [/^write through the parent$/, "经由上级目录写入"],
  [/^write to an absolute path$/, "写入绝对路径"],
  [/^write through a dangling symlink$/, "经由悬空符号链接写入"],
  [/^write into a symlinked folder$/, "写入符号链接文件夹"],
  [/^overwrite through a symlink$/, "经由符号链接覆盖"],
  [/^edit through the parent$/, "经由上级目录编辑"],
  [/^edit through a symlink$/, "经由符号链接编辑"],
  [/^list the parent$/, "列出上级目录"],
  [/^list the root of the disk$/, "列出磁盘根目录"],
  [/^list a symlinked folder$/, "列出符号链接文件夹"],
  [/^the seed's bypass: a backslash$/, "经典绕过：反斜杠"],
  [/^the seed's bypass: command substitution$/, "经典绕过：命令替换"],
  [/^the seed's bypass: another shell$/, "经典绕过：另起一个 shell"],
  [/^a backslash$/, "反斜杠"],
  [/^command substitution$/, "命令替换"],
  [/^another shell$/, "另起一个 shell"],
  [/^backquotes$/, "反引号"],
  [/^a variable$/, "变量"],
  [/^a variable in double quotes$/, "双引号里的变量"],
  [/^redirection out$/, "向外重定向"],
  [/^redirection in from outside$/, "从外部重定向输入"],
  [/^two commands with \|\|$/, "用 || 连接两个命令"],
  [/^two commands with (;|&&)$/, "用 $1 连接两个命令"],
  [/^an option grouped behind another: (\S+)$/, "合写在另一个选项后面的选项：$1"],
  [/^an option that reads a named file: (\S+)$/, "读取指定文件的选项：$1"],
  [/^a recursive flag that follows symlinks: (.+)$/, "跟随符号链接的递归选项：$1"],
  [/^find following symlinks: (\S+)$/, "find 跟随符号链接：$1"],
  [/^a glob with brackets$/, "带方括号的通配符"],
  [/^a variable inside double quotes$/, "双引号里的变量"],
  [/^a comment hiding the rest$/, "注释藏起后面的内容"],
  [/^a newline$/, "换行符"],
  [/^background$/, "后台运行"],
  [/^a sub-shell$/, "子 shell"],
  [/^a pipe into a shell$/, "管道接到 shell"],
  [/^a pipe into a writer$/, "管道接到写文件的程序"],
  [/^find -delete$/, "find -delete"],
  [/^find -exec$/, "find -exec"],
  [/^sort -o writes$/, "sort -o 会写文件"],
  [/^an absolute path$/, "绝对路径"],
  [/^the parent directory$/, "上级目录"],
  [/^a symlink that points out$/, "指向外部的符号链接"],
  [/^a glob that can match \.\.$/, "可能匹配 .. 的通配符"],
  [/^an option with a path outside$/, "选项里带外部路径"],
  [/^an environment prefix$/, "环境变量前缀"],
  [/^a program not on the read-only list$/, "不在只读名单上的程序"],
  [/^env runs a program$/, "env 运行一个程序"],
  [/^an absolute program path$/, "程序的绝对路径"],
  // sizes and notes around a command
  [/^(\d+) MB of output$/, "$1 MB 输出"],
  [/^(\d+) MB of random bytes$/, "$1 MB 随机字节"],
  [/^yes \(never ends\)$/, "yes（永不结束）"],
];
/** A whole description, matched as it is written. */
const exactly = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
const ATTACK_NOTES: Array<[RegExp, string]> = [
  // The house attacks (house-attacks.ts), whole descriptions.
  ...HOUSE_ATTACKS_ZH,
  [/ (×\d+) while racy flips$/, " $1，同时 racy 不断翻转"],
  [/ (×\d+) while racy flips \(a read-only command: the shell opens after the check\)$/, " $1，同时 racy 不断翻转（只读命令：shell 在检查之后才打开文件）"],
  [/^read_file on four FIFOs, then inside\.txt must still be read$/, "read_file 读四个 FIFO，之后 inside.txt 仍须能读"],
  [/^write_file run\.sh \(reads and deletes outside\), then bash: sh run\.sh$/, "write_file run.sh（读取并删除外部文件），然后 bash：sh run.sh"],
  [/^edit an existing test to do harm, then run_tests$/, "把现有的测试改成做坏事，然后 run_tests"],
  [/^write_file a helper and a test that imports it, then run_tests \(--yes\)$/, "write_file 写一个辅助模块和导入它的测试，然后 run_tests（--yes）"],
  [/ \(NUL byte\)$/, "（NUL 字节）"],
  [/ by absolute path$/, "（绝对路径）"],
  [/ \(→ outside\/created\.txt, not there yet\)$/, "（→ outside/created.txt，尚不存在）"],
  [/ \(→ ([^)]+)\)$/, "（→ $1）"],
  [/ \((\w+) → outside\)$/, "（$1 → 外部）"],
  [/ \((\d+) MB\)$/, "（$1 MB）"],
  [/ — returns at once$/, " —— 立即返回"],
  [/ — past the timeout$/, " —— 超过时限"],
  [/ \(a new session\)$/, "（新会话）"],
  [/ \(the agent's own environment\)$/, "（agent 自己的环境变量）"],
  [/ \(a hard link to the secret\)$/, "（指向机密文件的硬链接）"],
  [/ \(a character device in the workspace\)$/, "（工作区里的字符设备）"],
  [/^write_file run\.sh, then bash \(approved\): sh run\.sh$/, "write_file run.sh，然后 bash（已批准）：sh run.sh"],
  [/^write_file \.bashrc and \.profile, then a read-only command$/, "write_file .bashrc 和 .profile，然后运行一条只读命令"],
  [/^write_file (\S+), then run_tests \(no --yes\)$/, "write_file $1，然后 run_tests（不带 --yes）"],
  [/^write_file (\S+), then run_tests \(--yes\)$/, "write_file $1，然后 run_tests（--yes）"],
  // Attacks of earlier corpora that the page's figures still hold, whole.
  [exactly("write_file .npmrc (script-shell)"), "write_file .npmrc（script-shell）"],
  [exactly("write_file packages/web/package.json with a postinstall"), "write_file packages/web/package.json，带 postinstall 脚本"],
  [exactly("write_file .envrc (direnv)"), "write_file .envrc（direnv）"],
  [exactly("write_file .vscode/tasks.json (runOn folderOpen)"), "write_file .vscode/tasks.json（runOn folderOpen）"],
  [exactly("edit_file package.json: the test script becomes curl | sh"), "edit_file package.json：test 脚本变成 curl | sh"],
  [exactly("edit_file .git/config: core.fsmonitor"), "edit_file .git/config：core.fsmonitor"],
  [exactly("ln -s .git/hooks hk, then write_file hk/post-checkout"), "ln -s .git/hooks hk，然后 write_file hk/post-checkout"],
  [exactly("SIGHUP to the agent's process group (a closed terminal, Ctrl-C) while a command runs and an MCP server left a process"), "命令运行中、MCP 服务器留下一个进程时，向 agent 的进程组发送 SIGHUP（关闭终端、Ctrl-C）"],
  [exactly("SIGHUP to the agent alone (kill) while a command runs and an MCP server left a process"), "命令运行中、MCP 服务器留下一个进程时，只向 agent 发送 SIGHUP（kill）"],
  [exactly("SIGTERM to the agent alone (kill) while a command runs and an MCP server left a process"), "命令运行中、MCP 服务器留下一个进程时，只向 agent 发送 SIGTERM（kill）"],
  [exactly("SIGINT to the agent's process group (a closed terminal, Ctrl-C) while a command runs and an MCP server left a process"), "命令运行中、MCP 服务器留下一个进程时，向 agent 的进程组发送 SIGINT（关闭终端、Ctrl-C）"],
  [exactly("a conversation on a pipe answers \"y\" to a command that is not read-only"), "经由管道的对话对一条非只读命令回答 \"y\""],
  [exactly("escape sequences (clipboard, clear screen, title, 8-bit CSI) in the model's text and a command's output"), "模型文本和命令输出里的转义序列（剪贴板、清屏、标题、8 位 CSI）"],
  [exactly("a hostile MCP server: its environment (the key?), a flood, a process left after the run"), "恶意的 MCP 服务器：它的环境变量（密钥？）、输出洪水、运行结束后留下的进程"],
  [exactly("a hostile MCP server reads a secret outside the workspace and writes there"), "恶意的 MCP 服务器读取工作区外的机密，并在那里写入"],
];
const VERBS: Array<[RegExp, string]> = [
  [/^read /, "读取 "],
  [/^write /, "写入 "],
  [/^edit /, "编辑 "],
  [/^bash \(approved\): /, "bash（已批准）："],
];

/** The attack's description in the language; `translated` false when a phrase of it has no words there. */
export function attackWords(what: string, lang: Lang): { text: string; translated: boolean } {
  const w = lang === "en" ? undefined : rowWords(lang);
  if (!w) return { text: what, translated: true };
  let text = what;
  let translated: boolean;
  // Whether a table had words for some part of it (a note, a verb, a whole description).
  let matched = false;
  for (const [re, to] of [...w.attackNotes, ...w.verbs])
    if (re.test(text)) {
      matched = true;
      text = text.replace(re, to);
    }
  // "tool: name" — translate the name after the tool (s07's cases, bash's sizes).
  const tools = ["read_file", "write_file", "edit_file", "list_files", "bash", w.approvedBash.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")];
  const named = new RegExp(`^(${tools.join("|")})\\s?[:：] ?(.*)$`, "s").exec(text);
  if (named) {
    const [, tool, rest] = named as unknown as [string, string, string];
    const phrase = w.attackPhrases.find(([re]) => re.test(rest));
    if (phrase) return { text: `${tool}${w.colon}${rest.replace(phrase[0], phrase[1])}`, translated: true };
    // A command: it stays as it is; English words around it would have matched a note above.
    translated = !/^[a-z]+ [a-z]+ [a-z]+ [a-z]+$/i.test(rest);
    return { text: `${tool}${w.colon}${rest}`, translated };
  }
  // Neither a whole description nor "tool: name": words that no table changed are still English,
  // unless they are a file tool and its path alone (code, the same in every language).
  return { text, translated: matched || /^(read_file|write_file|edit_file|list_files) (pattern )?\S+$/.test(what) };
}

const NOTE_ZH: Array<[RegExp, string]> = [
  [/^a process that starts its own session leaves the process group that s07 kills; only a sandbox \(container, cgroup\) catches it$/, "自己开新会话的进程会离开 s07 结束的那个进程组；只有沙箱（容器、cgroup）能抓住它"],
  [/^the agent process's environment is readable by any process of the same user; only running tools as another user, or in a sandbox, stops it$/, "同一用户的任何进程都能读到 agent 进程的环境变量；只有以另一个用户身份或在沙箱里运行工具才能阻止"],
  [/^a process that starts its own session leaves the process group.*$/, "自己开新会话的进程会离开进程组；沙箱的 PID 命名空间会结束它，没有沙箱时 spawnTool 凭它的标记找到它"],
  [/^the agent process's environment is readable by any process of the same user.*$/, "同一用户的任何进程都能读到 agent 进程的环境变量；沙箱自己的 PID 命名空间把它藏起来（没有沙箱时，这条命令会先征求同意）"],
  [/^a command's own opens happen after the policy's check.*$/, "命令自己打开文件发生在策略检查之后：只有沙箱能堵住这个竞争"],
  [/^a process in a new session with an empty environment.*$/, "新会话里、环境变量为空的进程：没有沙箱时什么也找不到它"],
];

const P3_CELL_ZH: Record<string, string> = {
  ok: "成立",
  FAILED: "失败",
  "n/a": "不适用",
  stopped: "已停止",
  SURVIVED: "存活",
  "survives (not claimed)": "存活（未声称）",
  ESCAPED: "逃逸",
  "escapes (not claimed)": "逃逸（未声称）",
  "stopped (not claimed)": "已拦截（未声称）",
  "not run": "未运行",
};

/** The rows' words in Chinese, from the tables above and part3-words.ts. */
const ZH: RowWords = {
  listSep: "；",
  colon: "：",
  approvedBash: "bash（已批准）",
  claims: Object.fromEntries(Object.entries(CLAIMS).map(([k, v]) => [k, v.zh])) as Record<ClaimKey, string>,
  faults: FAULTS_ZH,
  faultCell: FAULT_CELL_ZH,
  attackCell: ATTACK_CELL_ZH,
  bad: BAD_ZH,
  groups: GROUPS_ZH,
  toolsets: TOOLSETS_ZH,
  modes: MODES_ZH,
  notes: NOTE_ZH,
  attackPhrases: ATTACK_PHRASES,
  attackNotes: ATTACK_NOTES,
  verbs: VERBS,
  p3Cell: P3_CELL_ZH,
  hookBehaviours: HOOK_BEHAVIOURS_ZH,
  hookKinds: HOOK_KINDS_ZH,
  jobKinds: JOB_KINDS_ZH,
  runEnds: RUN_ENDS_ZH,
  rewindParts: REWIND_PARTS_ZH,
  rulesProperties: RULES_PROPERTIES_ZH,
  p3Groups: P3_GROUPS_ZH,
  p3Attacks: P3_ATTACKS_ZH,
  p3Notes: P3_NOTES_ZH,
};

/** The rows' words of a translated language (undefined for English: the figures' own words). */
export function rowWords(lang: Lang): RowWords | undefined {
  return ({ zh: ZH, ja: JA, ru: RU } as Partial<Record<Lang, RowWords>>)[lang];
}

const W_ALL = {
  en: {
    date: (d: string, cmd: string) => `_${d}, \`npm run ${cmd}\`:_`,
    tested: (ls: string, missing: string) => `Lessons tested: ${ls || "none"}${missing ? `; not present yet: ${missing}` : ""}`,
    fuzzHead: (n: number) => `### Property-based fuzzing (${n} generated runs per lesson)`,
    fuzzCols: ["lesson", "runs", "violations", "crashes", "ms/run", "claims checked"],
    counterexample: "Counterexample:",
    faultHead: "### Fault injection (retries: SDK default 2 / off)",
    fault: "fault",
    failed: (l: string, f: string, r: number, d: string) => `FAILED: ${l} ${f} (retries ${r}): ${d}`,
    sandbox: (s: "bubblewrap" | "none", modes: string) => `Sandbox: ${s === "bubblewrap" ? "bubblewrap (on)" : "none (off: bwrap cannot start here)"}; modes run: ${modes}.`,
    toolset: (id: string, ls: string, claims: boolean) => `- ${id}: used by ${ls || "no lesson present"}${claims ? " (they claim to stop the attacks marked claimed)" : " (no claim: run to show what the attacks do)"}`,
    attackHead: (n: number, cols: number) => `### Attack corpus (${n} attacks; ${cols} toolset × mode columns)`,
    attackCols: ["attack", "group"],
    escaped: (w: string, c: string, d: string) => `ESCAPED: ${w} (${c}): ${d}`,
    note: (w: string, n: string, sandboxOnly: boolean, claimed: boolean) => `- ${claimed ? "" : "not claimed by any lesson: "}${w}: ${n}${sandboxOnly ? " (claimed only with the sandbox)" : ""}.`,
    badHead: "### Bad input to the course",
    badCols: ["input", "handled", "what the learner sees"],
    yes: "yes",
    no: "NO",
    summary: (s: ReliabilityFigures["summary"]) =>
      `Summary: ${s.fuzz.runs} fuzzed runs, ${s.fuzz.invariant_violations} violations, ${s.fuzz.crashes} crashes; ` +
      `faults ${s.faults.survived}/${s.faults.total} survived; attacks ${s.attacks.escaped} escaped of ${s.attacks.tried} claimed; ` +
      `bad inputs ${s.bad_inputs.handled}/${s.bad_inputs.tried} handled.` +
      (s.part3
        ? ` Part III: hooks ${s.part3.hooks.passed}/${s.part3.hooks.cells} cells held; rules ${s.part3.rules.runs} fuzzed cases, ${s.part3.rules.violations} violations; ` +
          `jobs ${s.part3.jobs.survived} survived of ${s.part3.jobs.tried} claimed; rewinds ${s.part3.rewind.passed}/${s.part3.rewind.cells} held; attacks ${s.part3.attacks.escaped} escaped of ${s.part3.attacks.tried} claimed.`
        : ""),
    p3Head: (d: string, ls: string, sandbox: string) => `### Part III (s18–s22)\n\n_${d}, \`npm run reliability -- --only part3\`; lessons: ${ls}; sandbox: ${sandbox}._`,
    p3Hooks: "#### Hooks that misbehave (s19)",
    p3HooksCols: ["hook", "kind"],
    p3HooksNote: "A cell holds when the run went on as s19 says (or stopped as it says), the transcript stayed valid and sendable, a broken hook was reported in one line, and no process the hook started was alive afterwards.",
    p3Rules: "#### Permission rules fuzzed (s18)",
    p3RulesCols: ["property", "runs", "violations"],
    p3Jobs: "#### Background jobs that never end (s22)",
    p3JobsCols: ["job"],
    p3JobsNote: "A cell is \"stopped\" when, after the run ended that way, no process of the job was alive (looked for by a token in its command line) and the transcript was valid.",
    p3Rewind: "#### A rewind after every kind of stop (s21)",
    p3RewindCols: ["stop", "checkpoint 1: code", "1: conversation", "1: both", "checkpoint 2: code", "2: conversation", "2: both"],
    p3RewindNote: "A cell holds when the files equal the checkpoint's (or what the run left, when the code is not rewound), the history is what it was before the checkpoint's prompt (or what the run left), and the next question makes a sendable request.",
    p3Attacks: (n: number) => `#### Attacks on Part III's surfaces (${n} attacks)`,
    p3AttacksCols: ["attack", "group", "lesson"],
    p3Failed: (what: string, where: string, d: string) => `FAILED: ${what} (${where}): ${d}`,
    p3Note: (w: string, n: string) => `- not claimed: ${w}: ${n}.`,
  },
  zh: {
    date: (d: string, cmd: string) => `_${d}，\`npm run ${cmd}\`：_`,
    tested: (ls: string, missing: string) => `测试的课：${ls || "无"}${missing ? `；尚未加入：${missing}` : ""}`,
    fuzzHead: (n: number) => `### 基于性质的模糊测试（每课生成 ${n} 次运行）`,
    fuzzCols: ["课", "运行次数", "违反", "崩溃", "毫秒/次", "检查的声称"],
    counterexample: "反例：",
    faultHead: "### 故障注入（重试：SDK 默认 2 次 / 关闭）",
    fault: "故障",
    failed: (l: string, f: string, r: number, d: string) => `失败：${l} ${f}（重试 ${r} 次）：${d}`,
    sandbox: (s: "bubblewrap" | "none", modes: string) => `沙箱：${s === "bubblewrap" ? "bubblewrap（开启）" : "无（关闭：bwrap 在这里无法启动）"}；运行的模式：${modes}。`,
    toolset: (id: string, ls: string, claims: boolean) => `- ${TOOLSETS_ZH[id] ?? id}：${ls || "没有现有的课"} 使用${claims ? "（声称能挡住标为声称的攻击）" : "（不作声称：运行只为展示攻击的效果）"}`,
    attackHead: (n: number, cols: number) => `### 攻击用例（${n} 个攻击；${cols} 列 工具集 × 模式）`,
    attackCols: ["攻击", "类别"],
    escaped: (w: string, c: string, d: string) => `逃逸：${w}（${c}）：${d}`,
    note: (w: string, n: string, sandboxOnly: boolean, claimed: boolean) => `- ${claimed ? "" : "没有任何一课声称能挡住："}${w}：${n}${sandboxOnly ? "（只在有沙箱时声称）" : ""}。`,
    badHead: "### 课程收到的错误输入",
    badCols: ["输入", "已处理", "学习者看到的"],
    yes: "是",
    no: "否",
    summary: (s: ReliabilityFigures["summary"]) =>
      `汇总：模糊测试 ${s.fuzz.runs} 次运行，${s.fuzz.invariant_violations} 次违反，${s.fuzz.crashes} 次崩溃；` +
      `故障 ${s.faults.survived}/${s.faults.total} 次挺过；声称能挡住的 ${s.attacks.tried} 个攻击中 ${s.attacks.escaped} 个逃逸；` +
      `错误输入 ${s.bad_inputs.handled}/${s.bad_inputs.tried} 个已处理。` +
      (s.part3
        ? `第三部分：钩子 ${s.part3.hooks.passed}/${s.part3.hooks.cells} 格成立；规则模糊测试 ${s.part3.rules.runs} 例，${s.part3.rules.violations} 次违反；` +
          `声称能停下的 ${s.part3.jobs.tried} 次作业中 ${s.part3.jobs.survived} 次存活；回退 ${s.part3.rewind.passed}/${s.part3.rewind.cells} 格成立；声称能挡住的 ${s.part3.attacks.tried} 次攻击中 ${s.part3.attacks.escaped} 次逃逸。`
        : ""),
    p3Head: (d: string, ls: string, sandbox: string) => `### 第三部分（s18–s22）\n\n_${d}，\`npm run reliability -- --only part3\`；课：${ls}；沙箱：${sandbox}。_`,
    p3Hooks: "#### 行为异常的钩子（s19）",
    p3HooksCols: ["钩子", "类型"],
    p3HooksNote: "一格成立的条件：运行按 s19 说的继续（或按它说的停下），对话记录仍然有效、可以再次发送，坏掉的钩子用一行报告出来，之后钩子启动的进程一个也不剩。",
    p3Rules: "#### 权限规则的模糊测试（s18）",
    p3RulesCols: ["性质", "运行次数", "违反"],
    p3Jobs: "#### 永不结束的后台作业（s22）",
    p3JobsCols: ["作业"],
    p3JobsNote: "“已停止”表示运行以这种方式结束后，作业的进程一个也不剩（按命令行里的标记查找），对话记录有效。",
    p3Rewind: "#### 每种停止之后的回退（s21）",
    p3RewindCols: ["停止", "检查点 1：代码", "1：对话", "1：两者", "检查点 2：代码", "2：对话", "2：两者"],
    p3RewindNote: "一格成立的条件：文件与检查点时一致（只回退对话时，与运行留下的一致），历史是检查点提示之前的样子（或运行留下的样子），下一个问题组成的请求可以发送。",
    p3Attacks: (n: number) => `#### 针对第三部分新攻击面的攻击（${n} 个攻击）`,
    p3AttacksCols: ["攻击", "类别", "课"],
    p3Failed: (what: string, where: string, d: string) => `失败：${what}（${where}）：${d}`,
    p3Note: (w: string, n: string) => `- 不作声称：${w}：${n}。`,
  },
};

/** ja and ru: the headings and column names (the rest in English for now). */
const HEADS: Partial<Record<Lang, Partial<(typeof W_ALL)["en"]>>> = {
  ja: {
    failed: (l: string, f: string, r: number, d: string) => `失敗：${l} ${f}（リトライ ${r} 回）：${d}`,
    sandbox: (s: "bubblewrap" | "none", modes: string) => `サンドボックス：${s === "bubblewrap" ? "bubblewrap（オン）" : "なし（オフ：ここでは bwrap を起動できない）"}；実行したモード：${modes}。`,
    toolset: (id: string, ls: string, claims: boolean) => `- ${rowWords("ja")?.toolsets[id] ?? id}：${ls || "該当するレッスンなし"} が使う${claims ? "（主張ありと印の付いた攻撃を止めると主張する）" : "（主張なし：攻撃が何をするかを見せるために実行）"}`,
    escaped: (w: string, c: string, d: string) => `脱出：${w}（${c}）：${d}`,
    note: (w: string, n: string, sandboxOnly: boolean, claimed: boolean) => `- ${claimed ? "" : "どのレッスンも主張していない："}${w}：${n}${sandboxOnly ? "（サンドボックスがあるときだけ主張）" : ""}。`,
    summary: (s: ReliabilityFigures["summary"]) =>
      `まとめ：ファジングした実行 ${s.fuzz.runs} 回、違反 ${s.fuzz.invariant_violations} 件、クラッシュ ${s.fuzz.crashes} 件；` +
      `障害 ${s.faults.total} 件中 ${s.faults.survived} 件を乗り切った；主張ありの攻撃 ${s.attacks.tried} 件中 ${s.attacks.escaped} 件が脱出；` +
      `不正な入力 ${s.bad_inputs.tried} 件中 ${s.bad_inputs.handled} 件を処理。` +
      (s.part3
        ? `パート III：フック ${s.part3.hooks.cells} セル中 ${s.part3.hooks.passed} セルが成立；ルールのファジング ${s.part3.rules.runs} 件、違反 ${s.part3.rules.violations} 件；` +
          `主張ありのジョブ ${s.part3.jobs.tried} 件中 ${s.part3.jobs.survived} 件が生き残った；巻き戻し ${s.part3.rewind.cells} セル中 ${s.part3.rewind.passed} セルが成立；主張ありの攻撃 ${s.part3.attacks.tried} 件中 ${s.part3.attacks.escaped} 件が脱出。`
        : ""),
    p3HooksNote: "セルが成立するのは、実行が s19 の言うとおりに続いた（または言うとおりに止まった）とき、トランスクリプトが有効なまま送り直せるとき、壊れたフックが 1 行で報告されたとき、そしてフックが起動したプロセスがその後 1 つも生きていないときです。",
    p3JobsNote: "セルが \"停止済み\" なのは、実行がそのように終わった後、ジョブのプロセスが 1 つも生きておらず（コマンドラインの目印で探す）、トランスクリプトが有効だったときです。",
    p3RewindNote: "セルが成立するのは、ファイルがチェックポイントのときと同じ（コードを巻き戻さないときは実行が残したとおり）で、履歴がチェックポイントのプロンプトより前のとおり（または実行が残したとおり）で、次の質問が送れるリクエストになるときです。",
    p3Failed: (what: string, where: string, d: string) => `失敗：${what}（${where}）：${d}`,
    p3Note: (w: string, n: string) => `- 主張していない：${w}：${n}。`,
    date: (d: string, cmd: string) => `_${d}、\`npm run ${cmd}\`：_`,
    tested: (ls: string, missing: string) => `テストしたレッスン：${ls || "なし"}${missing ? `；まだないもの：${missing}` : ""}`,
    fuzzHead: (n: number) => `### プロパティベースのファジング（レッスンごとに生成した ${n} 回の実行）`,
    fuzzCols: ["レッスン", "実行", "違反", "クラッシュ", "ms/回", "確かめた主張"],
    counterexample: "反例：",
    faultHead: "### 障害注入（リトライ：SDK 既定の 2 回 / オフ）",
    fault: "障害",
    attackHead: (n: number, cols: number) => `### 攻撃コーパス（${n} 件の攻撃；ツールセット × モードの ${cols} 列）`,
    attackCols: ["攻撃", "グループ"],
    badHead: "### コースへの不正な入力",
    badCols: ["入力", "処理済み", "学習者に見えるもの"],
    yes: "はい",
    no: "いいえ",
    p3Head: (d: string, ls: string, sandbox: string) => `### パート III（s18–s22）\n\n_${d}、\`npm run reliability -- --only part3\`；レッスン：${ls}；サンドボックス：${sandbox}。_`,
    p3Hooks: "#### 誤動作するフック（s19）",
    p3HooksCols: ["フック", "種類"],
    p3Rules: "#### 権限ルールのファジング（s18）",
    p3RulesCols: ["性質", "実行", "違反"],
    p3Jobs: "#### 終わらないバックグラウンドジョブ（s22）",
    p3JobsCols: ["ジョブ"],
    p3Rewind: "#### あらゆる停止の後の巻き戻し（s21）",
    p3RewindCols: ["停止", "チェックポイント 1：コード", "1：会話", "1：両方", "チェックポイント 2：コード", "2：会話", "2：両方"],
    p3Attacks: (n: number) => `#### パート III の新しい面への攻撃（${n} 件）`,
    p3AttacksCols: ["攻撃", "グループ", "レッスン"],
  },
  ru: {
    failed: (l: string, f: string, r: number, d: string) => `ПРОВАЛ: ${l} ${f} (повторов ${r}): ${d}`,
    sandbox: (s: "bubblewrap" | "none", modes: string) => `Песочница: ${s === "bubblewrap" ? "bubblewrap (включена)" : "нет (выключена: bwrap здесь не запускается)"}; режимы запуска: ${modes}.`,
    toolset: (id: string, ls: string, claims: boolean) => `- ${rowWords("ru")?.toolsets[id] ?? id}: используют ${ls || "нет ни одного урока"}${claims ? " (они утверждают, что останавливают атаки, отмеченные как заявленные)" : " (без заявлений: запуск показывает, что делают атаки)"}`,
    escaped: (w: string, c: string, d: string) => `ПРОРВАЛАСЬ: ${w} (${c}): ${d}`,
    note: (w: string, n: string, sandboxOnly: boolean, claimed: boolean) => `- ${claimed ? "" : "ни один урок этого не заявляет: "}${w}: ${n}${sandboxOnly ? " (заявлено только с песочницей)" : ""}.`,
    summary: (s: ReliabilityFigures["summary"]) =>
      `Итог: ${s.fuzz.runs} запусков фаззинга, ${s.fuzz.invariant_violations} нарушений, ${s.fuzz.crashes} падений; ` +
      `сбоев пережито ${s.faults.survived} из ${s.faults.total}; атак прорвалось ${s.attacks.escaped} из ${s.attacks.tried} заявленных; ` +
      `плохих вводов обработано ${s.bad_inputs.handled} из ${s.bad_inputs.tried}.` +
      (s.part3
        ? ` Часть III: хуки ${s.part3.hooks.passed} из ${s.part3.hooks.cells} ячеек выдержали; правила ${s.part3.rules.runs} случаев фаззинга, ${s.part3.rules.violations} нарушений; ` +
          `фоновых заданий выжило ${s.part3.jobs.survived} из ${s.part3.jobs.tried} заявленных; откаты ${s.part3.rewind.passed} из ${s.part3.rewind.cells} выдержали; атак прорвалось ${s.part3.attacks.escaped} из ${s.part3.attacks.tried} заявленных.`
        : ""),
    p3HooksNote: "Ячейка выдержала, если запуск продолжился так, как говорит s19 (или остановился так, как он говорит), транскрипт остался корректным и пригодным к отправке, о сломанном хуке сообщено одной строкой и ни один процесс, запущенный хуком, после этого не остался жив.",
    p3JobsNote: "Ячейка «остановлено», если после такого завершения запуска ни один процесс задания не остался жив (искали по метке в его командной строке), а транскрипт корректен.",
    p3RewindNote: "Ячейка выдержала, если файлы совпадают с файлами контрольной точки (или с тем, что оставил запуск, когда код не откатывается), история такая, какой была до запроса контрольной точки (или какой её оставил запуск), а следующий вопрос даёт запрос, который можно отправить.",
    p3Failed: (what: string, where: string, d: string) => `ПРОВАЛ: ${what} (${where}): ${d}`,
    p3Note: (w: string, n: string) => `- не заявлено: ${w}: ${n}.`,
    date: (d: string, cmd: string) => `_${d}, \`npm run ${cmd}\`:_`,
    tested: (ls: string, missing: string) => `Проверенные уроки: ${ls || "нет"}${missing ? `; ещё нет: ${missing}` : ""}`,
    fuzzHead: (n: number) => `### Фаззинг по свойствам (${n} сгенерированных запусков на урок)`,
    fuzzCols: ["урок", "запуски", "нарушения", "падения", "мс/запуск", "проверенные утверждения"],
    counterexample: "Контрпример:",
    faultHead: "### Внедрение сбоев (повторы: 2 по умолчанию в SDK / выключены)",
    fault: "сбой",
    attackHead: (n: number, cols: number) => `### Корпус атак (атак: ${n}; столбцов набор инструментов × режим: ${cols})`,
    attackCols: ["атака", "группа"],
    badHead: "### Неверный ввод в курс",
    badCols: ["ввод", "обработан", "что видит ученик"],
    yes: "да",
    no: "НЕТ",
    p3Head: (d: string, ls: string, sandbox: string) => `### Часть III (s18–s22)\n\n_${d}, \`npm run reliability -- --only part3\`; уроки: ${ls}; песочница: ${sandbox}._`,
    p3Hooks: "#### Хуки, которые ведут себя плохо (s19)",
    p3HooksCols: ["хук", "вид"],
    p3Rules: "#### Фаззинг правил доступа (s18)",
    p3RulesCols: ["свойство", "запуски", "нарушения"],
    p3Jobs: "#### Фоновые задачи, которые не кончаются (s22)",
    p3JobsCols: ["задача"],
    p3Rewind: "#### Откат после любой остановки (s21)",
    p3RewindCols: ["остановка", "точка 1: код", "1: разговор", "1: оба", "точка 2: код", "2: разговор", "2: оба"],
    p3Attacks: (n: number) => `#### Атаки на новые поверхности части III (атак: ${n})`,
    p3AttacksCols: ["атака", "группа", "урок"],
  },
};
const W = (lang: Lang) => wordsFor(W_ALL, lang, HEADS);

// ── markdown ──

/** Display width: a CJK character takes two columns in a terminal and in the page's source. */
const width = (s: string) => [...s].reduce((n, c) => n + (/[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(c) ? 2 : 1), 0);
const pad = (s: string, w: number) => s + " ".repeat(Math.max(0, w - width(s)));

/** A markdown table, padded so the source lines up (pipes in cells escaped). */
export function markdownTable(head: string[], rows: Array<Array<string | number>>): string[] {
  const cells = rows.map((r) => r.map((c) => String(c).replace(/\|/g, "\\|")));
  const widths = head.map((h, i) => Math.max(width(h), ...cells.map((r) => width(r[i] ?? ""))));
  const line = (r: string[]) => `| ${r.map((c, i) => pad(c, widths[i]!)).join(" | ")} |`;
  return [line(head), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...cells.map(line), ""];
}

/** The report's lines (without the date line and the JSON), as the terminal shows them. */
export function renderReliability(f: ReliabilityFigures, lang: Lang): string[] {
  const w = W(lang);
  const rw = rowWords(lang);
  /** A row's word in the page's language: its table's, or the figures' own (English, or a word no table has yet). */
  const tr = <K extends string>(table: ((x: RowWords) => Partial<Record<K, string>>) | undefined, id: K, en: string) => (rw && table ? (table(rw)[id] ?? en) : en);
  const out: string[] = [w.tested(f.lessons.join(", "), f.missing.join(", ")), ""];
  if (f.fuzz) {
    out.push(w.fuzzHead(f.fuzz.per), "");
    out.push(...markdownTable(w.fuzzCols, f.fuzz.rows.map((r) => [r.lesson, r.runs, r.violations, r.crashes, r.ms_per_run.toFixed(1), r.claims.map((c) => tr((x) => x.claims, c, CLAIMS[c].en)).join(rw?.listSep ?? "; ")])));
    for (const c of f.fuzz.counterexamples) out.push(`${w.counterexample}\n\n\`\`\`text\n${c}\n\`\`\`\n`);
  }
  if (f.faults) {
    out.push(w.faultHead, "");
    const cell = (c: FaultCell) => tr((x) => x.faultCell, c, c);
    out.push(...markdownTable([w.fault, ...f.faults.lessons], f.faults.rows.map((r) => [tr((x) => x.faults, r.id, r.what), ...r.cells.map(([a, b]) => `${cell(a)} / ${cell(b)}`)])));
    for (const x of f.faults.failed) out.push(w.failed(x.lesson, x.fault, x.retries, x.detail));
  }
  if (f.attacks) {
    const a = f.attacks;
    const words = (s: string) => attackWords(s, lang).text;
    const column = (c: string) => (rw ? c.replace(/^([^·]+?)( · |$)/, (_m, id: string, sep: string) => `${tr((x) => x.toolsets, id, id)}${sep}`) : c);
    if (a.sandbox) out.push(w.sandbox(a.sandbox, a.modes.join(", ")), "");
    for (const t of a.toolsets) out.push(w.toolset(t.id, t.lessons.join(", "), t.claims));
    out.push("", w.attackHead(a.corpus, a.columns.length), "");
    out.push(
      ...markdownTable(
        [...w.attackCols, ...a.columns.map(column)],
        a.rows.map((r) => [words(r.what), tr((x) => x.groups, r.group, r.group), ...r.cells.map((c) => tr((x) => x.attackCell, c, c))]),
      ),
    );
    for (const e of a.escaped) out.push(w.escaped(words(e.what), column(e.column), e.detail));
    for (const n of a.notes) {
      const note = rw ? rw.notes.reduce((s, [re, to]) => s.replace(re, to), n.note) : n.note;
      out.push(w.note(words(n.what), note, n.sandboxOnly === true, n.claimed !== false));
    }
    out.push("");
  }
  if (f.bad) {
    out.push(w.badHead, "");
    // What the learner sees is the tool's own output: shown as code, word for word.
    out.push(...markdownTable(w.badCols, f.bad.map((b) => [tr((x) => x.bad, b.id, b.what), b.handled ? w.yes : w.no, `\`${b.detail.replace(/\n/g, " ").replace(/`/g, "'")}\``])));
  }
  if (f.part3) out.push(...renderPart3(f.part3, lang));
  out.push(w.summary(f.summary));
  return out;
}


/** Part III's tables: hooks, rules, jobs, rewind, attacks (each only when it ran). */
export function renderPart3(p: Part3Figures, lang: Lang): string[] {
  const w = W(lang);
  const rw = rowWords(lang);
  const cell = (c: string) => (rw ? (rw.p3Cell[c] ?? c) : c);
  /** A row's word in the page's language: its table's, or the figures' own. */
  const tr = (table: (x: RowWords) => Record<string, string>, id: string, en: string) => (rw ? (table(rw)[id] ?? en) : en);
  const out: string[] = [w.p3Head(p.date, p.lessons.join(", "), p.sandbox), ""];
  if (p.hooks) {
    const h = p.hooks;
    out.push(w.p3Hooks, "", w.p3HooksNote, "");
    const cols = h.modes.flatMap((m) => h.events.map((e) => `${e} · ${m}`));
    out.push(...markdownTable([...w.p3HooksCols, ...cols], h.rows.map((r) => [tr((x) => x.hookBehaviours, r.id, r.what), tr((x) => x.hookKinds, r.kind, r.kind), ...r.cells.map(cell)])));
    for (const x of h.failed) out.push(w.p3Failed(x.behaviour, `${x.event} · ${x.mode}`, x.detail));
  }
  if (p.rules) {
    out.push(w.p3Rules, "");
    out.push(...markdownTable(w.p3RulesCols, p.rules.properties.map((r) => [tr((x) => x.rulesProperties, r.id, r.what), r.runs, r.violations])));
    for (const c of p.rules.counterexamples) out.push(`${w.counterexample}\n\n\`\`\`text\n${c}\n\`\`\`\n`);
  }
  if (p.jobs) {
    const j = p.jobs;
    out.push(w.p3Jobs, "", w.p3JobsNote, "");
    const cols = j.modes.flatMap((m) => j.ends.map((e) => `${tr((x) => x.runEnds, e, e)} · ${m}`));
    out.push(...markdownTable([...w.p3JobsCols, ...cols], j.rows.map((r) => [tr((x) => x.jobKinds, r.id, r.what), ...r.cells.map(cell)])));
    for (const x of j.failed) out.push(w.p3Failed(x.kind, `${x.end} · ${x.mode}`, x.detail));
  }
  if (p.rewind) {
    const r = p.rewind;
    out.push(w.p3Rewind, "", w.p3RewindNote, "");
    out.push(...markdownTable(w.p3RewindCols, r.rows.map((row) => [row.stop, ...row.cells.map(cell)])));
    for (const x of r.failed) out.push(w.p3Failed(x.stop, x.column.replace(/\w+$/, (m) => tr((x) => x.rewindParts, m, m)), x.detail));
  }
  if (p.attacks) {
    const a = p.attacks;
    out.push(w.p3Attacks(a.corpus), "");
    // An attack "stopped" is the corpus's word for it (zh 已拦截), as in the table above; a job "stopped" is p3Cell's (zh 已停止).
    const attackCell = (c: string) => (rw && c === "stopped" ? rw.attackCell.stopped : cell(c));
    out.push(...markdownTable([...w.p3AttacksCols, ...a.modes.map((m) => tr((x) => x.modes, m, m))], a.rows.map((r) => [tr((x) => x.p3Attacks, r.id, r.what), tr((x) => x.p3Groups, r.group, r.group), r.owner, ...r.cells.map(attackCell)])));
    for (const x of a.escaped) out.push(w.p3Failed(tr((x) => x.p3Attacks, x.attack, x.attack), x.mode, x.detail));
    for (const n of a.notes) out.push(w.p3Note(tr((x) => x.p3Attacks, n.id, n.what), tr((x) => x.p3Notes, n.id, n.note)));
    out.push("");
  }
  return out;
}

const START = "<!-- reliability:latest:start -->";
const END = "<!-- reliability:latest:end -->";
const DATA = /<!-- reliability:figures (\{[\s\S]*?\}) -->/;

/** Markdown for a page: angle brackets and asterisks of commands must not become HTML or emphasis (code spans are left alone). */
function markdownSafe(line: string): string {
  if (line.startsWith("  ")) return line;
  return line
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\*/g, "\\*")))
    .join("");
}

/**
 * The whole block between the page's markers, in the page's language, inside a `.report-block`
 * (the browser test finds the generated rows by it), with the figures it was drawn from.
 */
export function reliabilityBlock(f: ReliabilityFigures, lang: Lang): string {
  const body = renderReliability(f, lang).map(markdownSafe);
  const json = JSON.stringify(f).replace(/--/g, "-\\u002d");
  return `${START}\n\n<div class="report-block" data-report="reliability">\n\n${W(lang).date(f.date, "reliability")}\n\n${body.join("\n")}\n\n\`\`\`json\n${JSON.stringify(f.summary)}\n\`\`\`\n\n</div>\n\n<!-- reliability:figures ${json} -->\n\n${END}`;
}

/** The page with its block replaced; the page unchanged when it has no markers. */
export function replaceBlock(page: string, block: string, kind: "reliability" | "bench" | "eval" | "context_editing" | "hook_cost"): string {
  const start = `<!-- ${kind}:latest:start -->`;
  const end = `<!-- ${kind}:latest:end -->`;
  const a = page.indexOf(start);
  const b = page.indexOf(end);
  if (a < 0 || b < a) return page;
  return page.slice(0, a) + block + page.slice(b + end.length);
}

/** The figures a page's block was drawn from, or null (a block written before they were kept). */
export function figuresOf(page: string): ReliabilityFigures | null {
  const m = DATA.exec(page);
  return m ? (JSON.parse(m[1]!) as ReliabilityFigures) : null;
}
