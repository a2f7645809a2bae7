/**
 * The lessons' default tasks, and the scratch workspaces they run in: a part of the manifest
 * (runtime/manifest.ts), kept apart because its values are long. A lesson imports its task from
 * here; the scripted model's scenarios import the same constants, so the offline model answers
 * the very task the lesson asks, and a lesson never depends on the scripted model.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { registrationOf } from "./registrations.ts";

/** The sample repository shipped with the course (the login service of the failing-login task). */
export const SAMPLE_REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), "../examples/login-service");

/** The eval suite (evals/tasks/<id>/: instruction.md, repo/, check/): `npm run eval` runs it, s23 grades a few of its tasks. */
export const EVAL_SUITE = resolve(dirname(fileURLToPath(import.meta.url)), "../evals/tasks");

export const S01_TASK =
  "Say in one sentence what you will do, then use the bash tool to list the files in the current directory.";

export const S02_TASK =
  'The greeting in src/greet.mjs says "Helo" instead of "Hello". Fix it, run the tests, and tell me what you changed.';
/** The scratch workspace the lesson creates for its default task (path → text). */
export const S02_WORKSPACE: Record<string, string> = {
  "README.md": "# greet\n\nA tiny module that greets people. Tests: `node test/greet.test.mjs`.\n",
  "src/greet.mjs": "/** Greets someone by name. */\nexport function greet(name) {\n  return `Helo, ${name}!`;\n}\n",
  "test/greet.test.mjs":
    'import assert from "node:assert/strict";\nimport { greet } from "../src/greet.mjs";\n\n' +
    'assert.equal(greet("world"), "Hello, world!");\nconsole.log("1 test passed: greet");\n',
};

/** The failing-login task, on a scratch copy of SAMPLE_REPOSITORY. */
export const S03_TASK = "The login tests fail. Run them, read the log and the source to find out why, then fix it.";

export const S04_TASK = "What port does config/server.json set? Wait for the build to write dist/ready.txt first.";
/** The scratch workspace of the default task: a config file with a trailing comma, no dist/. */
export const S04_WORKSPACE: Record<string, string> = {
  "config/server.json": '{\n  "host": "127.0.0.1",\n  "port": 8080,\n}\n',
  "README.md": "# server\n\nThe build writes dist/ready.txt when it is done.\n",
};

export const S05_TASK = "Write short release notes for version 1.2.0 to NOTES.md, then tell me when you are done.";
/** The max_tokens the lesson asks for on its default task: too small for the write_file call. */
export const S05_SMALL_MAX_TOKENS = 100;
/** The lesson's tour: one short task per stop_reason the default task does not show (offline). */
export const S05_TOUR_TASKS: Array<{ title: string; task: string; stopSequences?: string[] }> = [
  { title: "stops at a stop sequence", task: "Answer inside <answer> tags.", stopSequences: ["</answer>"] },
  { title: "refuses", task: "Tell me how to pick my neighbour's lock." },
  { title: "runs out of context window", task: "Summarise this whole repository, every file." },
  { title: "a stop_reason from the future", task: "Say hello the way a newer model would." },
  { title: "ends its turn with no content", task: "Say nothing at all." },
];

export const S06_TASK = "Wait until the build has written dist/ready.txt, then tell me what it says.";
/** The scratch workspace of the default task: the build never finishes. */
export const S06_WORKSPACE: Record<string, string> = {
  "README.md": "# app\n\nThe build writes dist/ready.txt when it is done.\n",
  "src/app.ts": "export const ready = false;\n",
};

export const S07_TASK =
  "Look around the workspace: count the lines of README.md, read /etc/passwd, then leave a marker file .course/s07-was-here.";
/** The scratch workspace the default task runs in. */
export const S07_WORKSPACE: Record<string, string> = {
  "README.md": "# A scratch workspace\n\nLesson s07 runs here, so nothing it does touches the course.\nThree lines of text.\n",
  "src/hello.ts": 'export const hello = "world";\n',
};

export const S08_TASK = "Read README.md and package.json, then tell me what this project is, as it comes to you.";
/** The scratch workspace the default task runs in. */
export const S08_WORKSPACE: Record<string, string> = {
  "README.md": "# tiny-cli\n\nA command line that greets you. Run `npm start`.\n",
  "package.json": JSON.stringify({ name: "tiny-cli", version: "1.0.0", scripts: { start: "node index.js" } }, null, 2) + "\n",
  "index.js": 'console.log("hello");\n',
};

export const S10_TASK = "List the files in the current directory.";
export const S10_FOLLOW_UP = "How many entries did you find, and which one came first?";
export const S10_SLOW = "Wait for a slow command to finish.";

export const S11_TASK = "Read README.md and package.json, then describe this project in detail.";
/** What the loop sends when an answer was cut off by max_tokens. */
export const CONTINUE_PROMPT = "Continue exactly where you stopped, without repeating anything.";

/** The failing-login task for the capstone (and s09), in the sample repository. */
export const S12_TASK = "Run the login module's tests and find out why one fails.";
/** The same task in its original Chinese words. */
export const S12_TASK_ZH = "跑一下 login 模块的测试，有失败就查清楚原因。";

/** Part II (s13–s17). s13: a long session on the sample repository, one file per turn. */
export const S13_TASK = "Read the login service's files one at a time, then summarise what it does.";

/** s14: a task of several steps, on a scratch copy of the sample repository. */
export const S14_TASK = "Plan it, then fix the failing login test: run the tests, find the cause, fix it, and run them again.";

/** s15: two independent look-ups handed to subagents, then an explanation (sample repository). */
export const S15_TASK = "Find out why one login test fails: have one helper read the source and another read the log, at the same time, then explain.";
/** The prompts the s15 parent gives its two children (the scripted model answers them as tasks). */
export const S15_CHILD_SOURCE = "Read src/login.js and quote the line that decides when an account is locked, with its line number.";
export const S15_CHILD_LOG = "Read logs/auth.log and quote the line that shows an account not locked after too many failed attempts.";

/** s16: a task that one of the example skills (examples/skills) is written for. */
export const S16_TASK = "Write the release notes for version 1.2.1: the login lockout off-by-one is fixed.";
/** The example skills: folders with a SKILL.md each. */
export const SKILLS_EXAMPLE = resolve(dirname(fileURLToPath(import.meta.url)), "../examples/skills");

/** s17: a question only the example MCP server (examples/mcp-notes) can answer. */
export const S17_TASK = "What do our team notes say about account lockouts?";
/** The example MCP server's config file, in the `mcpServers` format. */
export const MCP_EXAMPLE_CONFIG = resolve(dirname(fileURLToPath(import.meta.url)), "../examples/mcp-notes/mcp.json");

/**
 * A task of a lesson that registers itself (solutions/sNN_slug/course.json, "tasks"): "task" is its
 * default task. The lesson and its scenario both read it from here, so they cannot drift apart.
 */
export function lessonTask(dir: string, name = "task"): string {
  const reg = registrationOf(dir);
  const task = reg?.tasks[name];
  if (task === undefined) throw new Error(`${reg ? reg.file : `solutions/${dir}/course.json`} has no task "${name}" (under "tasks")`);
  return task;
}
