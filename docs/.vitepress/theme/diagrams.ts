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
    title: w("The agent loop", "Agent 循环", "エージェントループ", "Цикл агента"),
    caption: w(
      'The loop goes round until stop_reason is not "tool_use".',
      "循环一直转，直到 stop_reason 不再是 \"tool_use\"。",
      'stop_reason が "tool_use" でなくなるまで、ループは回り続けます。',
      'Цикл идёт по кругу, пока stop_reason не перестанет быть "tool_use".',
    ),
    cols: 2,
    rows: 4,
    boxes: [
      { id: "task", col: 0, row: 0, label: w("user: the task", "user：任务", "user：タスク", "user: задача"), kind: "user" },
      { id: "call", col: 0, row: 1, label: w("messages.create()", "messages.create()", "messages.create()", "messages.create()"), sub: w("append the reply unchanged", "原样追加回复", "応答をそのまま追加", "добавить ответ без изменений"), kind: "call", mono: true },
      { id: "tools", col: 0, row: 2, label: w("run each tool_use", "运行每个 tool_use", "各 tool_use を実行", "выполнить каждый tool_use"), kind: "tool" },
      { id: "results", col: 0, row: 3, label: w("ONE user message", "同一条 user 消息", "一つの user メッセージ", "ОДНО сообщение user"), sub: w("a tool_result per id", "每个 id 一个 tool_result", "id ごとに tool_result", "tool_result на каждый id"), kind: "user" },
      { id: "done", col: 1, row: 1, label: w("done", "结束", "終了", "готово"), sub: w("return the response", "返回这次响应", "応答を返す", "вернуть ответ"), kind: "done" },
    ],
    arrows: [
      { from: "task", to: "call" },
      { from: "call", to: "tools", label: w("tool_use", "tool_use", "tool_use", "tool_use") },
      { from: "call", to: "done", label: w("any other", "其他", "それ以外", "любой другой") },
      { from: "tools", to: "results" },
      { from: "results", to: "call", back: true, side: "left" },
    ],
  },
  s02_tool_dispatch: {
    title: w("Dispatch by name", "按名字分派", "名前でディスパッチ", "Диспетчеризация по имени"),
    caption: w(
      "One registry: the API's tool list, and the handler for each call; an unknown name is answered, never thrown.",
      "一个注册表：既给出 API 的工具列表，也为每个调用找到处理函数；未知的名字得到回答，而不是抛出异常。",
      "1 つのレジストリが、API に渡すツール一覧と、各呼び出しのハンドラーを受け持ちます。未知の名前には例外を投げず、答えを返します。",
      "Один реестр: список инструментов для API и обработчик для каждого вызова; на неизвестное имя даётся ответ, исключение не бросается.",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "use", col: 0, row: 1, label: w("tool_use", "tool_use", "tool_use", "tool_use"), sub: w("{ id, name, input }", "{ id, name, input }", "{ id, name, input }", "{ id, name, input }"), kind: "assistant", mono: true },
      { id: "reg", col: 1, row: 1, label: w("registry.dispatch()", "registry.dispatch()", "registry.dispatch()", "registry.dispatch()"), sub: w("look the name up", "按名字查找", "名前で探す", "найти по имени"), kind: "call", mono: true },
      { id: "defs", col: 1, row: 0, label: w("registry.definitions()", "registry.definitions()", "registry.definitions()", "registry.definitions()"), sub: w("tools: [...] of every request", "每次请求的 tools: [...]", "各リクエストの tools: [...]", "tools: [...] каждого запроса"), kind: "plain", mono: true },
      { id: "run", col: 2, row: 0, label: w("read_file · edit_file · bash …", "read_file · edit_file · bash …", "read_file · edit_file · bash …", "read_file · edit_file · bash …"), sub: w("tool.run(input, ctx)", "tool.run(input, ctx)", "tool.run(input, ctx)", "tool.run(input, ctx)"), kind: "tool" },
      { id: "unknown", col: 1, row: 2, label: w("no such tool", "没有这个工具", "そのツールはない", "нет такого инструмента"), sub: w("is_error: the tools that exist", "is_error：列出现有的工具", "is_error：存在するツール", "is_error: какие инструменты есть"), kind: "error" },
      { id: "result", col: 2, row: 2, label: w("tool_result", "tool_result", "tool_result", "tool_result"), sub: w("tool_use_id = the call's id", "tool_use_id = 调用的 id", "tool_use_id = 呼び出しの id", "tool_use_id = id вызова"), kind: "user", mono: true },
    ],
    arrows: [
      { from: "use", to: "reg" },
      { from: "defs", to: "reg", label: w("same objects", "同一组对象", "同じオブジェクト", "те же объекты") },
      { from: "reg", to: "run", label: w("found", "找到", "見つかった", "найден") },
      { from: "reg", to: "unknown", label: w("unknown", "未知", "未知", "неизвестен") },
      { from: "run", to: "result" },
      { from: "unknown", to: "result" },
    ],
  },
  s03_parallel_tools: {
    title: w("Batches on a time line", "时间线上的批次", "タイムライン上のバッチ", "Пакеты на шкале времени"),
    caption: w(
      "Read-only calls side by side run at the same time; a write runs alone; the answers go back in ONE message, in the order asked.",
      "相邻的只读调用同时运行；写操作单独运行；所有回答按提问的顺序放进同一条消息。",
      "隣り合う読み取り専用の呼び出しは同時に実行され、書き込みは単独で実行されます。答えは求められた順に、1 つのメッセージで返ります。",
      "Соседние вызовы только для чтения выполняются одновременно; запись выполняется отдельно; ответы возвращаются в ОДНОМ сообщении, в порядке запросов.",
    ),
    cols: 3,
    rows: 3,
    axis: w("time →", "时间 →", "時間 →", "время →"),
    boxes: [
      { id: "a", col: 0, row: 0, label: w("A read_file log", "A read_file 日志", "A read_file ログ", "A read_file лог"), sub: w("read-only: together", "只读：同时运行", "読み取り専用：同時に", "только чтение: вместе"), kind: "tool" },
      { id: "b", col: 0, row: 1, label: w("B read_file source", "B read_file 源码", "B read_file ソース", "B read_file исходник"), sub: w("read-only: together", "只读：同时运行", "読み取り専用：同時に", "только чтение: вместе"), kind: "tool" },
      { id: "c", col: 1, row: 0, rows: 2, label: w("C edit_file", "C edit_file", "C edit_file", "C edit_file"), sub: w("writes: alone", "会写入：单独运行", "書き込む：単独で", "пишет: отдельно"), kind: "guard" },
      { id: "d", col: 2, row: 0, rows: 2, label: w("D bash: run tests", "D bash：运行测试", "D bash：テストを実行", "D bash: запуск тестов"), sub: w("not read-only: alone", "不是只读：单独运行", "読み取り専用でない：単独で", "не только чтение: отдельно"), kind: "guard" },
      { id: "msg", col: 0, row: 2, span: 3, label: w("ONE user message: results A, B, C, D", "同一条 user 消息：结果 A、B、C、D", "一つの user メッセージ：結果 A、B、C、D", "ОДНО сообщение user: результаты A, B, C, D"), sub: w("in the order asked, whoever finished first", "按提问的顺序，不管谁先完成", "求められた順。先に終わった順ではない", "в порядке запросов, кто бы ни закончил первым"), kind: "user" },
    ],
    arrows: [
      { from: "a", to: "c" },
      { from: "b", to: "c" },
      { from: "c", to: "d" },
      { from: "d", to: "msg" },
    ],
  },
  s04_tool_errors: {
    title: w("Errors are observations", "错误也是观察结果", "エラーは観測結果", "Ошибки — это наблюдения"),
    caption: w(
      "Whatever happens, the call gets a tool_result; a failure is one with is_error, and the model acts on it.",
      "无论发生什么，调用都会得到一个 tool_result；失败就是带 is_error 的结果，模型据此调整。",
      "何が起きても、呼び出しは tool_result を受け取ります。失敗とは is_error を持つ結果で、モデルはそれをもとに次の手を打ちます。",
      "Что бы ни случилось, вызов получает tool_result; сбой — это результат с is_error, и модель действует по нему.",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "use", col: 0, row: 0, label: w("tool_use", "tool_use", "tool_use", "tool_use"), sub: w("input from the model", "来自模型的输入", "モデルからの入力", "входные данные модели"), kind: "assistant", mono: true },
      { id: "schema", col: 1, row: 0, label: w("input fits the schema?", "输入符合 schema？", "入力はスキーマどおり？", "вход соответствует схеме?"), sub: w("zod", "zod", "zod", "zod"), kind: "guard" },
      { id: "run", col: 2, row: 0, label: w("run it, with a deadline", "带时限地运行", "期限付きで実行", "выполнить, со сроком"), kind: "tool" },
      { id: "bad", col: 0, row: 1, label: w("is_error: what was wrong", "is_error：哪里不对", "is_error：何が違ったか", "is_error: что не так"), sub: w("nothing ran", "什么都没运行", "何も実行されない", "ничего не запущено"), kind: "error" },
      { id: "threw", col: 1, row: 1, label: w("is_error: threw / too slow", "is_error：抛出异常 / 超时", "is_error：例外 / 遅すぎ", "is_error: исключение / слишком долго"), sub: w("the tool is told to stop", "工具收到停止信号", "ツールに停止を通知", "сигнал инструменту: стоп"), kind: "error" },
      { id: "ok", col: 2, row: 1, label: w("tool_result", "tool_result", "tool_result", "tool_result"), sub: w("its output", "它的输出", "その出力", "его вывод"), kind: "user", mono: true },
      { id: "next", col: 0, row: 2, span: 3, label: w("every call answered: the model reads it and tries again", "每个调用都有回答：模型读到它，再试一次", "すべての呼び出しに答え：モデルは読んで、もう一度試す", "ответ на каждый вызов: модель читает его и пробует снова"), kind: "assistant" },
    ],
    arrows: [
      { from: "use", to: "schema" },
      { from: "schema", to: "run", label: w("yes", "是", "はい", "да") },
      { from: "schema", to: "bad", label: w("no", "否", "いいえ", "нет") },
      { from: "run", to: "ok", label: w("works", "成功", "成功", "работает") },
      { from: "run", to: "threw", label: w("fails", "失败", "失敗", "сбой") },
      { from: "bad", to: "next" },
      { from: "threw", to: "next" },
      { from: "ok", to: "next" },
    ],
  },
  s05_stop_reasons: {
    title: w("The stop_reason decision", "按 stop_reason 决定", "stop_reason による判断", "Решение по stop_reason"),
    caption: w(
      "Every stop_reason has its own answer; only end_turn is success.",
      "每个 stop_reason 都有自己的处理；只有 end_turn 才算成功。",
      "stop_reason ごとに扱い方があります。成功は end_turn だけです。",
      "У каждого stop_reason свой ответ; успех — только end_turn.",
    ),
    cols: 3,
    rows: 5,
    boxes: [
      { id: "resp", col: 0, row: 2, label: w("the response", "这次响应", "応答", "ответ"), sub: w("response.stop_reason", "response.stop_reason", "response.stop_reason", "response.stop_reason"), kind: "assistant" },
      { id: "end", col: 2, row: 0, label: w("done", "完成", "完了", "готово"), sub: w("store the answer", "保存回答", "答えを保存", "сохранить ответ"), kind: "done" },
      { id: "tool", col: 2, row: 1, label: w("run the tools, go round", "运行工具，再来一轮", "ツールを実行し、もう一周", "выполнить инструменты, новый круг"), kind: "tool" },
      { id: "max", col: 2, row: 2, label: w("cut off: run nothing", "被截断：什么都不运行", "打ち切り：何も実行しない", "обрезан: не запускать"), sub: w("ask again with more max_tokens", "用更大的 max_tokens 重问", "max_tokens を増やして聞き直す", "спросить снова, увеличив max_tokens"), kind: "guard" },
      { id: "pause", col: 2, row: 3, label: w("send the turn back", "把这一轮发回去", "ターンを送り返す", "отправить ход обратно"), sub: w("the model goes on", "模型继续", "モデルが続ける", "модель продолжает"), kind: "call" },
      { id: "other", col: 2, row: 4, label: w("stopped, with the reason", "停止，并说明原因", "理由を添えて停止", "остановлен, с причиной"), kind: "error" },
    ],
    arrows: [
      { from: "resp", to: "end", label: w("end_turn", "end_turn", "end_turn", "end_turn") },
      { from: "resp", to: "tool", label: w("tool_use", "tool_use", "tool_use", "tool_use") },
      { from: "resp", to: "max", label: w("max_tokens", "max_tokens", "max_tokens", "max_tokens") },
      { from: "resp", to: "pause", label: w("pause_turn", "pause_turn", "pause_turn", "pause_turn") },
      { from: "resp", to: "other", label: w("refusal · stop_sequence · …", "refusal · stop_sequence · …", "refusal · stop_sequence · …", "refusal · stop_sequence · …") },
    ],
  },
  s06_guards: {
    title: w("Guard checkpoints", "防护检查点", "ガードのチェックポイント", "Контрольные точки ограничителей"),
    caption: w(
      "The loop stops itself at a checkpoint, and only where every tool_use already has its answer.",
      "循环在检查点自己停下，而且只在每个 tool_use 都已有回答的地方停。",
      "ループはチェックポイントで自ら止まります。それも、すべての tool_use に答えが済んでいる場所でだけです。",
      "Цикл останавливается сам в контрольной точке, и только там, где на каждый tool_use уже есть ответ.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "g1", col: 0, row: 0, label: w("before a request", "请求之前", "リクエストの前", "перед запросом"), sub: w("turns · tokens · deadline", "轮数 · token · 时限", "ターン · トークン · 期限", "ходы · токены · срок"), kind: "guard" },
      { id: "call", col: 1, row: 0, label: w("messages.create()", "messages.create()", "messages.create()", "messages.create()"), kind: "call", mono: true },
      { id: "tools", col: 2, row: 0, label: w("run the tools", "运行工具", "ツールを実行", "выполнить инструменты"), sub: w("every call answered", "每个调用都有回答", "すべての呼び出しに答える", "ответ на каждый вызов"), kind: "tool" },
      { id: "g2", col: 2, row: 1, label: w("the same call again?", "同一个调用又来了？", "同じ呼び出しがまた？", "снова тот же вызов?"), sub: w("name + input repeated", "名字和输入都重复", "名前と入力が繰り返し", "повтор имени и входа"), kind: "guard" },
      { id: "halt", col: 1, row: 1, label: w("halted: the reason", "停止：说明原因", "停止：理由を添えて", "остановлен: причина"), sub: w("transcript can be sent again", "对话记录可以再次发送", "トランスクリプトは再送信できる", "транскрипт готов к отправке"), kind: "error" },
    ],
    arrows: [
      { from: "g1", to: "call", label: w("ok", "通过", "通過", "в пределах") },
      { from: "call", to: "tools" },
      { from: "tools", to: "g2" },
      { from: "g2", to: "halt", label: w("repeat", "重复", "繰り返し", "повтор") },
      { from: "g1", to: "halt", label: w("over a limit", "超出限制", "制限超過", "предел превышен") },
      { from: "g2", to: "g1", back: true, side: "below", label: w("next turn", "下一轮", "次のターン", "следующий ход") },
    ],
  },
  s07_safe_tools: {
    title: w("Two layers", "两层防护", "2 つの層", "Два слоя"),
    caption: w(
      "The tools' own checks catch mistakes early and explain them; the boundary that holds is the one the operating system enforces.",
      "工具自己的检查尽早发现错误并说明原因；真正挡得住的，是操作系统强制执行的边界。",
      "ツール自身のチェックは、間違いを早く見つけて説明します。本当に持ちこたえる境界は、オペレーティングシステムが強制するものです。",
      "Собственные проверки инструментов ловят ошибки рано и объясняют их; граница, которая действительно держит, — та, что обеспечивает операционная система.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "call", col: 0, row: 0, label: w("a tool call", "一次工具调用", "ツール呼び出し", "вызов инструмента"), sub: w("path or command from the model", "来自模型的路径或命令", "モデルからのパスやコマンド", "путь или команда от модели"), kind: "assistant" },
      { id: "checks", col: 1, row: 0, label: w("1 · the tools' checks", "1 · 工具自己的检查", "1 · ツールのチェック", "1 · проверки инструмента"), sub: w("real path in the workspace? approved?", "真实路径在工作区内？已批准？", "実パスはワークスペース内？承認済み？", "реальный путь в рабочей папке? одобрено?"), kind: "guard" },
      { id: "box", col: 2, row: 0, label: w("2 · the sandbox", "2 · 沙箱", "2 · サンドボックス", "2 · песочница"), sub: w("the kernel limits what it reaches", "由内核限制它能碰到什么", "届く範囲はカーネルが制限", "ядро ограничивает, куда она достаёт"), kind: "safe" },
      { id: "refused", col: 1, row: 1, label: w("is_error: refused", "is_error：拒绝", "is_error：拒否", "is_error: отказ"), sub: w("says why and what to do", "说明原因和该怎么做", "理由とすべきことを伝える", "говорит, почему и что делать"), kind: "error" },
      { id: "runs", col: 2, row: 1, label: w("runs", "运行", "実行", "выполняется"), sub: w("clean env · output cap · timeout", "干净环境 · 输出上限 · 超时", "クリーンな環境 · 出力上限 · タイムアウト", "чистое окружение · предел вывода · тайм-аут"), kind: "tool" },
    ],
    arrows: [
      { from: "call", to: "checks" },
      { from: "checks", to: "box", label: w("passes", "通过", "通過", "пройдено") },
      { from: "checks", to: "refused", label: w("no", "否", "いいえ", "нет") },
      { from: "box", to: "runs" },
    ],
  },
  s08_streaming: {
    title: w("Stream events and an early start", "流式事件和提前启动", "ストリームのイベントと早めの開始", "События потока и ранний запуск"),
    caption: w(
      "A read-only call starts at its block's content_block_stop, while the message is still streaming; the transcript is the same.",
      "只读调用在它的块收到 content_block_stop 时就启动，此时消息还在流式传来；对话记录不变。",
      "読み取り専用の呼び出しは、メッセージがまだストリーミング中でも、そのブロックの content_block_stop で始まります。トランスクリプトは変わりません。",
      "Вызов только для чтения стартует на content_block_stop своего блока, пока сообщение ещё идёт потоком; транскрипт тот же.",
    ),
    cols: 3,
    rows: 2,
    axis: w("time →", "时间 →", "時間 →", "время →"),
    boxes: [
      { id: "text", col: 0, row: 0, label: w("text_delta …", "text_delta …", "text_delta …", "text_delta …"), sub: w("after message_start: printed as it arrives", "message_start 后随到随打印", "message_start の後、届いたそばから表示", "после message_start: печать по мере поступления"), kind: "assistant", mono: true },
      { id: "json", col: 1, row: 0, label: w("input_json_delta …", "input_json_delta …", "input_json_delta …", "input_json_delta …"), sub: w("content_block_stop: the call is known", "content_block_stop：调用已知", "content_block_stop：呼び出しが確定", "content_block_stop: вызов известен"), kind: "assistant", mono: true },
      { id: "stop", col: 2, row: 0, label: w("message_stop", "message_stop", "message_stop", "message_stop"), sub: w("stop_reason: tool_use", "stop_reason：tool_use", "stop_reason: tool_use", "stop_reason: tool_use"), kind: "call", mono: true },
      { id: "early", col: 1, row: 1, span: 2, label: w("the read-only tool is already running", "只读工具已经在运行", "読み取り専用ツールはもう実行中", "инструмент только для чтения уже работает"), sub: w("its result is ready sooner", "它的结果更早就绪", "結果が早く揃う", "его результат готов раньше"), kind: "tool" },
    ],
    arrows: [
      { from: "text", to: "json" },
      { from: "json", to: "stop" },
      { from: "json", to: "early", label: w("start early", "提前启动", "早めに開始", "запустить раньше") },
    ],
  },
  s09_observability: {
    title: w("Events and where they go", "事件及其去向", "イベントとその行き先", "События и куда они идут"),
    caption: w(
      "The loop emits one typed event per step; listeners decide what to do with it.",
      "循环每一步发出一个有类型的事件；由监听者决定如何处理。",
      "ループはステップごとに型付きのイベントを 1 つ発行し、それをどう扱うかは聞き手が決めます。",
      "Цикл испускает одно типизированное событие на каждый шаг; слушатели решают, что с ним делать.",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "loop", col: 0, row: 1, label: w("the loop", "循环", "ループ", "цикл"), sub: w("emit(event)", "emit(event)", "emit(event)", "emit(event)"), kind: "call" },
      { id: "events", col: 1, row: 1, label: w("think · act · observe · stop", "think · act · observe · stop", "think · act · observe · stop", "think · act · observe · stop"), sub: w("usage and cost per turn", "每轮的用量和费用", "ターンごとの使用量とコスト", "расход и стоимость за ход"), kind: "assistant", mono: true },
      { id: "log", col: 2, row: 0, label: w("logger", "日志", "ロガー", "логгер"), sub: w("one line per event", "每个事件一行", "イベントごとに 1 行", "строка на событие"), kind: "plain" },
      { id: "jsonl", col: 2, row: 1, label: w(".course/runs/*.jsonl", ".course/runs/*.jsonl", ".course/runs/*.jsonl", ".course/runs/*.jsonl"), sub: w("replay it in the player", "可以在播放器里回放", "プレーヤーで再生できる", "воспроизвести в плеере"), kind: "user", mono: true },
      { id: "trace", col: 2, row: 2, label: w("--trace table", "--trace 表格", "--trace の表", "таблица --trace"), kind: "plain", mono: true },
    ],
    arrows: [
      { from: "loop", to: "events" },
      { from: "events", to: "log" },
      { from: "events", to: "jsonl" },
      { from: "events", to: "trace" },
    ],
  },
  s10_conversation: {
    title: w("A session's life", "一个会话的生命周期", "セッションの一生", "Жизнь сессии"),
    caption: w(
      "One history across questions, saved after every turn; Ctrl-C ends the turn, not the session.",
      "多个问题共用一份历史，每轮之后保存；Ctrl-C 结束的是这一轮，而不是整个会话。",
      "質問をまたいで 1 つの履歴を持ち、ターンごとに保存します。Ctrl-C が終わらせるのはターンで、セッションではありません。",
      "Одна история на все вопросы, сохраняется после каждого хода; Ctrl-C завершает ход, а не сессию.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "ask", col: 0, row: 0, label: w("> a question", "> 一个问题", "> 質問", "> вопрос"), sub: w("appended to the history", "追加到历史", "履歴に追加", "добавлен в историю"), kind: "user" },
      { id: "turn", col: 1, row: 0, label: w("the agent loop", "Agent 循环", "エージェントループ", "цикл агента"), sub: w("one turn", "一轮", "1 ターン", "один ход"), kind: "call" },
      { id: "save", col: 2, row: 0, label: w("save the session", "保存会话", "セッションを保存", "сохранить сессию"), sub: w("resume it later, word for word", "以后原样恢复", "後で一字一句そのまま再開", "возобновить позже слово в слово"), kind: "done" },
      { id: "cancel", col: 1, row: 1, label: w("Ctrl-C", "Ctrl-C", "Ctrl-C", "Ctrl-C"), sub: w("abort; leave a whole history", "中止；留下完整的历史", "中断。履歴は完全なまま", "прервать; история остаётся целой"), kind: "error" },
    ],
    arrows: [
      { from: "ask", to: "turn" },
      { from: "turn", to: "save" },
      { from: "turn", to: "cancel" },
      { from: "cancel", to: "save" },
      { from: "save", to: "ask", back: true, side: "below", label: w("next question", "下一个问题", "次の質問", "следующий вопрос") },
    ],
  },
  s11_recovery: {
    title: w("Who recovers", "由谁来恢复", "誰が回復するか", "Кто восстанавливается"),
    caption: w(
      "The SDK retries what it can; the loop handles what only the history can fix: a broken stream, a full context.",
      "SDK 重试它能处理的；循环处理只有历史才能修复的：中断的流、装满的上下文。",
      "SDK は再試行できるものを再試行します。ループは、履歴でしか直せないもの（途切れたストリーム、いっぱいのコンテキスト）を扱います。",
      "SDK повторяет то, что может; цикл берёт на себя то, что может исправить только история: оборванный поток, полный контекст.",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "req", col: 0, row: 1, label: w("a request fails", "一次请求失败", "リクエストが失敗", "запрос не удался"), kind: "error" },
      { id: "sdk", col: 1, row: 0, label: w("the SDK", "SDK", "SDK", "SDK"), sub: w("429 · 5xx · 529: back off, retry", "429 · 5xx · 529：退避重试", "429 · 5xx · 529：バックオフして再試行", "429 · 5xx · 529: отсрочка, повтор"), kind: "call" },
      { id: "retry", col: 1, row: 1, label: w("the loop: send the turn again", "循环：重发这一轮", "ループ：ターンを送り直す", "цикл: отправить ход снова"), sub: w("the stream broke; nothing appended", "流断了；什么都没追加", "ストリームが途切れた。何も追加していない", "поток оборвался; ничего не добавлено"), kind: "tool" },
      { id: "compact", col: 1, row: 2, label: w("the loop: compact", "循环：压缩", "ループ：圧縮", "цикл: сжатие"), sub: w("prompt too long; pairs kept whole", "提示太长；配对保持完整", "プロンプトが長すぎる。ペアは丸ごと保つ", "промпт слишком длинный; пары целы"), kind: "guard" },
      { id: "go", col: 2, row: 1, label: w("the loop goes on", "循环继续", "ループは続く", "цикл продолжается"), kind: "done" },
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
    title: w("The capstone's parts", "综合项目的组成", "総仕上げの構成", "Части итогового проекта"),
    caption: w(
      "One command, every mechanism of the course around the same loop.",
      "一个命令，课程里的每个机制都围绕同一个循环。",
      "1 つのコマンドで、コースのすべての仕組みが同じループを囲みます。",
      "Одна команда: каждый механизм курса вокруг одного и того же цикла.",
    ),
    cols: 3,
    rows: 3,
    boxes: [
      { id: "cli", col: 0, row: 1, label: w("npm run agent", "npm run agent", "npm run agent", "npm run agent"), sub: w("flags · task or REPL", "参数 · 任务或 REPL", "フラグ · タスクか REPL", "флаги · задача или REPL"), kind: "user", mono: true },
      { id: "loop", col: 1, row: 1, label: w("the loop", "循环", "ループ", "цикл"), sub: w("stream · guards · recovery", "流式 · 防护 · 恢复", "ストリーミング · ガード · 回復", "поток · ограничители · восстановление"), kind: "call" },
      { id: "tools", col: 2, row: 0, label: w("safe tools + run_tests", "安全工具 + run_tests", "安全なツール + run_tests", "безопасные инструменты + run_tests"), sub: w("workspace · approval · sandbox", "工作区 · 批准 · 沙箱", "ワークスペース · 承認 · サンドボックス", "рабочая папка · одобрение · песочница"), kind: "tool" },
      { id: "events", col: 2, row: 1, label: w("events", "事件", "イベント", "события"), sub: w("log · JSONL · cost", "日志 · JSONL · 费用", "ログ · JSONL · コスト", "лог · JSONL · стоимость"), kind: "plain" },
      { id: "session", col: 2, row: 2, label: w("session", "会话", "セッション", "сессия"), sub: w("saved, resumable", "已保存，可恢复", "保存済み、再開可能", "сохранена, возобновляема"), kind: "done" },
    ],
    arrows: [
      { from: "cli", to: "loop" },
      { from: "loop", to: "tools" },
      { from: "loop", to: "events" },
      { from: "loop", to: "session" },
    ],
  },
  s13_caching: {
    title: w("Where the cache breakpoints go", "缓存断点放在哪里", "キャッシュのブレークポイントの位置", "Где стоят точки кэширования"),
    caption: w(
      "The loop marks tools and system once and the newest message each turn: at most four marks, moved, never piled up.",
      "循环给工具和 system 标一次，每轮再标最新的消息：最多四个标记，只移动，从不堆积。",
      "ループはツールと system に 1 度、最新のメッセージにはターンごとにマーカーを付けます。マーカーは最大 4 つで、動かすだけで積み上げません。",
      "Цикл помечает инструменты и system один раз, а самое новое сообщение — каждый ход: не больше четырёх меток, они передвигаются и никогда не копятся.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "tools", col: 0, row: 0, label: w("tools", "工具", "ツール", "инструменты"), sub: w("mark 1: once", "标记 1：一次", "マーカー 1：1 度", "метка 1: один раз"), kind: "tool" },
      { id: "system", col: 1, row: 0, label: w("system", "system", "system", "system"), sub: w("mark 2: once", "标记 2：一次", "マーカー 2：1 度", "метка 2: один раз"), kind: "plain", mono: true },
      { id: "old", col: 2, row: 0, label: w("earlier messages", "更早的消息", "それ以前のメッセージ", "более ранние сообщения"), sub: w("read from the cache (0.1×)", "从缓存读取（0.1×）", "キャッシュから読む（0.1×）", "чтение из кэша (0.1×)"), kind: "done" },
      { id: "new", col: 2, row: 1, label: w("newest message", "最新的消息", "最新のメッセージ", "самое новое сообщение"), sub: w("mark 3 moves here each turn", "标记 3 每轮移到这里", "マーカー 3 が毎ターンここへ", "сюда каждый ход: метка 3"), kind: "user" },
      { id: "usage", col: 0, row: 1, span: 2, label: w("usage: cache reads and writes", "用量：缓存读取与写入", "使用量：キャッシュの読み書き", "расход: чтение и запись кэша"), sub: w("counted by s06's budget", "计入 s06 的预算", "s06 の予算に算入", "учитывается бюджетом s06"), kind: "guard" },
    ],
    arrows: [
      { from: "tools", to: "system" },
      { from: "system", to: "old" },
      { from: "old", to: "new" },
      { from: "new", to: "usage" },
    ],
  },
  s14_planning: {
    title: w("A plan the loop owns", "由循环掌管的计划", "ループが持つ計画", "План, которым владеет цикл"),
    caption: w(
      "The model rewrites the todo list; when the plan goes stale, a reminder follows the turn's tool results, never before them.",
      "模型重写 todo 列表；计划久未更新时，提醒放在这一轮的工具结果之后，绝不放在它们之前。",
      "モデルは todo リストを書き直します。計画が古くなると、リマインダーがそのターンのツール結果の後に続きます。決してその前には来ません。",
      "Модель переписывает список todo; когда план устаревает, напоминание идёт после результатов инструментов этого хода, никогда не перед ними.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "call", col: 0, row: 0, label: w("todo tool call", "todo 工具调用", "todo ツールの呼び出し", "вызов инструмента todo"), sub: w("the whole list, rewritten", "整张列表重写", "リスト全体を書き直す", "весь список, заново"), kind: "call" },
      { id: "plan", col: 1, row: 0, label: w("the plan", "计划", "計画", "план"), sub: w("at most one in progress", "最多一项进行中", "進行中は最大 1 つ", "в работе не больше одного"), kind: "tool" },
      { id: "progress", col: 2, row: 0, label: w("progress shown", "显示进度", "進捗を表示", "прогресс на экране"), kind: "done" },
      { id: "results", col: 0, row: 1, label: w("ONE user message", "同一条 user 消息", "一つの user メッセージ", "ОДНО сообщение user"), sub: w("tool_result blocks first", "先放 tool_result 块", "先に tool_result ブロック", "сначала блоки tool_result"), kind: "user" },
      { id: "reminder", col: 1, row: 1, label: w("then the reminder", "然后是提醒", "その後にリマインダー", "затем напоминание"), sub: w("a text block, only when the plan is stale", "一个文本块，仅在计划久未更新时", "テキストブロック。計画が古いときだけ", "текстовый блок, только если план устарел"), kind: "guard" },
      { id: "next", col: 2, row: 1, label: w("the next request", "下一次请求", "次のリクエスト", "следующий запрос"), sub: w("the model sees its plan", "模型看到自己的计划", "モデルが自分の計画を見る", "модель видит свой план"), kind: "call" },
    ],
    arrows: [
      { from: "call", to: "plan" },
      { from: "plan", to: "progress" },
      { from: "plan", to: "reminder", label: w("stale?", "久未更新？", "古い？", "устарел?") },
      { from: "results", to: "reminder" },
      { from: "reminder", to: "next" },
    ],
  },
  s15_subagents: {
    title: w("A child loop per task", "每个任务一个子循环", "タスクごとに子ループ", "Дочерний цикл на каждую задачу"),
    caption: w(
      "The task tool runs a child loop with a fresh history and fewer tools; only its final answer comes back as the tool_result.",
      "task 工具用全新的历史和更少的工具运行一个子循环；只有它的最终回答作为 tool_result 返回。",
      "task ツールは、まっさらな履歴と少ないツールで子ループを実行します。tool_result として戻るのは、その最終回答だけです。",
      "Инструмент task запускает дочерний цикл со свежей историей и меньшим набором инструментов; обратно как tool_result приходит только его итоговый ответ.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "parent", col: 0, row: 0, rows: 2, label: w("the parent loop", "父循环", "親ループ", "родительский цикл"), sub: w("its budget counts the children", "它的预算包括子循环", "予算は子ループの分も数える", "его бюджет учитывает дочерние"), kind: "call" },
      { id: "a", col: 1, row: 0, label: w("child A", "子循环 A", "子ループ A", "дочерний цикл A"), sub: w("fresh history · read-only tools", "全新历史 · 只读工具", "まっさらな履歴 · 読み取り専用ツール", "свежая история · инструменты только для чтения"), kind: "tool" },
      { id: "b", col: 1, row: 1, label: w("child B", "子循环 B", "子ループ B", "дочерний цикл B"), sub: w("runs beside A", "与 A 并行", "A と並行して実行", "работает параллельно с A"), kind: "tool" },
      { id: "answer", col: 2, row: 0, label: w("final answer → tool_result", "最终回答 → tool_result", "最終回答 → tool_result", "итоговый ответ → tool_result"), kind: "done" },
      { id: "fail", col: 2, row: 1, label: w("a guard or a failure → is_error", "防护或失败 → is_error", "ガードか失敗 → is_error", "ограничитель или сбой → is_error"), kind: "error" },
    ],
    arrows: [
      { from: "parent", to: "a" },
      { from: "parent", to: "b" },
      { from: "a", to: "answer" },
      { from: "b", to: "fail" },
    ],
  },
  s16_skills: {
    title: w("Skills on demand", "按需加载的技能", "必要なときに読み込むスキル", "Навыки по требованию"),
    caption: w(
      "The prompt lists each skill's name and description; load_skill brings a body only when the model asks for it.",
      "提示词只列出每个技能的名称和描述；只有模型要求时，load_skill 才取来正文。",
      "プロンプトには各スキルの名前と説明を並べます。本文は、モデルが求めたときにだけ load_skill が届けます。",
      "Промпт перечисляет имя и описание каждого навыка; load_skill приносит тело, только когда модель его просит.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "folders", col: 0, row: 0, label: w("skills/*/SKILL.md", "skills/*/SKILL.md", "skills/*/SKILL.md", "skills/*/SKILL.md"), sub: w("front matter: name, description", "前言：名称、描述", "フロントマター：名前、説明", "front matter: имя, описание"), kind: "plain", mono: true },
      { id: "prompt", col: 1, row: 0, label: w("system prompt", "系统提示词", "システムプロンプト", "системный промпт"), sub: w("names and descriptions only", "只有名称和描述", "名前と説明だけ", "только имена и описания"), kind: "user" },
      { id: "load", col: 2, row: 0, label: w("load_skill", "load_skill", "load_skill", "load_skill"), sub: w("the body, when asked", "需要时取来正文", "求められたときに本文", "тело, когда попросят"), kind: "call", mono: true },
      { id: "small", col: 1, row: 1, label: w("the prompt stays small", "提示词保持很小", "プロンプトは小さいまま", "промпт остаётся коротким"), sub: w("50 skills, a few hundred tokens", "50 个技能，几百个 token", "50 スキルで数百トークン", "50 навыков — сотни токенов"), kind: "done" },
    ],
    arrows: [
      { from: "folders", to: "prompt" },
      { from: "prompt", to: "load" },
      { from: "prompt", to: "small" },
    ],
  },
  s17_mcp: {
    title: w("Tools from MCP servers", "来自 MCP 服务器的工具", "MCP サーバーからのツール", "Инструменты от MCP-серверов"),
    caption: w(
      "The loop lists a server's tools, names them mcp__server__tool, calls them, and turns every failure into an is_error result.",
      "循环列出服务器的工具，命名为 mcp__server__tool，调用它们，并把每个失败变成 is_error 结果。",
      "ループはサーバーのツールを一覧し、mcp__server__tool と名付けて呼び出し、あらゆる失敗を is_error の結果に変えます。",
      "Цикл получает список инструментов сервера, называет их mcp__server__tool, вызывает их и превращает любой сбой в результат с is_error.",
    ),
    cols: 3,
    rows: 2,
    boxes: [
      { id: "config", col: 0, row: 0, label: w("mcpServers config", "mcpServers 配置", "mcpServers の設定", "конфигурация mcpServers"), sub: w("started over stdio", "通过 stdio 启动", "stdio で起動", "запуск через stdio"), kind: "plain", mono: true },
      { id: "server", col: 1, row: 0, label: w("MCP server", "MCP 服务器", "MCP サーバー", "MCP-сервер"), sub: w("tools/list · tools/call", "tools/list · tools/call", "tools/list · tools/call", "tools/list · tools/call"), kind: "tool" },
      { id: "loop", col: 2, row: 0, label: w("the agent loop", "Agent 循环", "エージェントループ", "цикл агента"), sub: w("mcp__notes__search", "mcp__notes__search", "mcp__notes__search", "mcp__notes__search"), kind: "call" },
      { id: "error", col: 1, row: 1, label: w("crash · hang · isError", "崩溃 · 挂起 · isError", "クラッシュ · ハング · isError", "падение · зависание · isError"), sub: w("→ an is_error tool_result", "→ 一个 is_error 的 tool_result", "→ is_error の tool_result", "→ tool_result с is_error"), kind: "error" },
      { id: "close", col: 2, row: 1, label: w("servers closed at the end", "结束时关闭服务器", "終了時にサーバーを停止", "в конце серверы закрыты"), kind: "done" },
    ],
    arrows: [
      { from: "config", to: "server" },
      { from: "server", to: "loop" },
      { from: "server", to: "error" },
      { from: "error", to: "loop", label: w("answered", "得到回答", "答えが返る", "есть ответ") },
      { from: "loop", to: "close" },
    ],
  },
};

/**
 * A lesson's picture: the one drawn here for it, else the one its course.json registers
 * (`registered`, read by the caller: the page generator and the translation sync read course.json,
 * the site's component gets it through the build-time data), else none. The page generator
 * (scripts/docs/pages.ts), the translation sync (scripts/docs/i18n-sync.ts) and the picture
 * (IdeaDiagram.vue) all ask this one function, so they agree on which picture a lesson has.
 */
export function diagramFor(dir: string, registered: unknown): Diagram | undefined {
  return DIAGRAMS[dir] ?? (registered as Diagram | undefined);
}
