/**
 * The generated report blocks (`npm run bench`, `npm run reliability`) on the Chinese pages, in
 * Chinese. The generators write one English block into both languages; the page rewriter
 * (pages.ts) translates the fixed words of a block between `<!-- bench:latest:start -->` /
 * `<!-- reliability:latest:start -->` and its end marker when it renders a zh page: headings,
 * column names, verdicts, the summary line. Figures, lesson ids, commands, attack inputs and the
 * learner-facing error messages stay as the tools print them.
 */

type Rule = [RegExp, string];

const RULES: Rule[] = [
  // headings
  [/^### Property-based fuzzing \((\d+) generated runs per lesson\)$/m, "### 基于性质的模糊测试（每课生成 $1 次运行）"],
  [/^### Fault injection \(retries: SDK default (\d+) \/ off\)$/m, "### 故障注入（重试：SDK 默认 $1 次 / 关闭）"],
  [/^### Attack corpus \((\d+) attacks × (\d+) toolsets\)$/m, "### 攻击用例（$1 个攻击 × $2 套工具）"],
  [/^### Bad input to the course$/m, "### 课程收到的错误输入"],
  [/^### Parallel tools$/m, "### 并行工具"],
  [/^### Streaming$/m, "### 流式输出"],
  [/^### Loop overhead \(model time subtracted\)$/m, "### 循环开销（已减去模型时间）"],
  [/^### Context growth \((\d+) turns, each reads a file of (\d+) characters\)$/m, "### 上下文增长（$1 轮，每轮读取一个 $2 个字符的文件）"],
  [/^### The learner's cycle$/m, "### 学习者的循环"],
  // lead lines
  [/^Lessons tested: /m, "测试的课："],
  [/^Lessons present: ([^.]+)\. Final agent: (s\d+)\. Machine: (\d+) cores, load average ([\d.]+) at the end of the run\./m, "现有的课：$1。最终 agent：$2。机器：$3 核，运行结束时负载 $4。"],
  [/^_(\d{4}-\d{2}-\d{2}), `npm run (bench|reliability)`:_$/m, "_$1，`npm run $2`：_"],
  // table heads
  [/^\| lesson +\| runs +\| violations +\| crashes +\| ms\/run +\| claims checked +\|$/m, "| 课 | 运行次数 | 违反 | 崩溃 | 毫秒/次 | 检查的承诺 |"],
  [/^\| fault +\|/m, "| 故障 |"],
  [/^\| attack +\| group +\| runtime tools +\| s07 safe tools +\|$/m, "| 攻击 | 类别 | runtime 工具 | s07 安全工具 |"],
  [/^\| input +\| handled +\| what the learner sees +\|$/m, "| 输入 | 已处理 | 学习者看到的 |"],
  [/^\| run +\| wall time +\| figure +\|$/m, "| 运行 | 耗时 | 指标 |"],
  [/^\| session +\| ms per turn +\| figure +\|$/m, "| 会话 | 每轮毫秒 | 指标 |"],
  [/^\| run +\| turns +\| input tokens, all turns +\| input tokens, last turn +\| cache read share +\|$/m, "| 运行 | 轮数 | 输入 token（全部轮） | 输入 token（最后一轮） | 缓存读取占比 |"],
  // verdicts and fixed phrases in cells and lists
  [/escapes \(not claimed\)/g, "逃逸（未承诺）"],
  [/\| stopped( +)\|/g, "| 已拦截$1|"],
  [/\| stopped( +)\|/g, "| 已拦截$1|"],
  [/recovered \/ clear stop/g, "已恢复 / 明确停止"],
  [/\| yes( +)\|/g, "| 是$1|"],
  [/\| no( +)\|/g, "| 否$1|"],
  [/^- runtime tools: used by ([^(]+) \(no claim: run to show what the attacks do\)$/m, "- runtime 工具：$1 使用（不作承诺：运行只为展示攻击的效果）"],
  [/^- s07 safe tools: used by ([^(]+) \(they claim to stop the attacks marked claimed\)$/m, "- s07 安全工具：$1 使用（承诺拦截标为已承诺的攻击）"],
  [/^- not claimed by any lesson: /gm, "- 没有任何一课承诺拦截："],
  [/\(first text at (\d+) ms of (\d+) ms; goal ≤ ([\d.]+)\)/g, "（第一段文字在 $1 ms 出现，共 $2 ms；目标 ≤ $3）"],
  [/\(goal ≤ ([\d.]+)\)/g, "（目标 ≤ $1）"],
  [/\(goal ≥ ([\d.]+), ideal ([\d.]+)\)/g, "（目标 ≥ $1，理想值 $2）"],
  [/goal ≤ ([\d.]+)\)/g, "目标 ≤ $1）"],
  [/\(reported, not judged\)/g, "（只报告，不评判）"],
  [
    /^Summary: (\d+) fuzzed runs, (\d+) violations, (\d+) crashes; faults (\d+)\/(\d+) survived; attacks (\d+) escaped of (\d+) claimed; bad inputs (\d+)\/(\d+) handled\.$/m,
    "汇总：模糊测试 $1 次运行，$2 次违反，$3 次崩溃；故障 $4/$5 次挺过；已承诺的 $7 个攻击中 $6 个逃逸；错误输入 $8/$9 个已处理。",
  ],
];

const BLOCK = /(<!-- (bench|reliability):latest:start -->)([\s\S]*?)(<!-- \2:latest:end -->)/g;

/** The text with each generated report block's fixed words in Chinese; code fences inside are left alone. */
export function translateReports(src: string): string {
  return src.replace(BLOCK, (_all, start: string, _kind: string, body: string, end: string) => {
    const parts = body.split(/(```[\s\S]*?```)/);
    const out = parts.map((part, i) => (i % 2 === 1 ? part : RULES.reduce((text, [re, to]) => text.replace(re, to), part)));
    return `${start}${out.join("")}${end}`;
  });
}
