/**
 * Model selection and what a learner sees when something goes wrong: the banner for each way of
 * choosing a model (never with a key in it), COURSE_OFFLINE, a corrupt .env,. runMain as real
 * processes (a TODO, a 400, a 401, a connection error, an unexpected error) is in run-main.test.ts:
 * the extended suite (npm run test:all).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_MODEL, printableUrl, selectModel } from "../../runtime/client.ts";
import { CourseError, envFileProblem, loadEnv } from "../../runtime/env.ts";

const SECRET = "sk-ant-api03-TESTSECRET-0123456789";
const OFFLINE_BANNER = "model: scripted (offline) — set ANTHROPIC_API_KEY to use Claude";

describe("selectModel: which model, and the banner", () => {
  it("no key, no URL: the scripted model, offline, and it answers", async () => {
    const s = selectModel({ env: {} });
    expect(s.offline).toBe(true);
    expect(s.banner).toBe(OFFLINE_BANNER);
    expect(s.scripted).toBeDefined();
    const m = await s.client.messages.create({ model: s.model, max_tokens: 100, messages: [{ role: "user", content: "hello" }] });
    expect(m.content[0]).toMatchObject({ type: "text" });
    expect(JSON.stringify(m.content)).toMatch(/scripted model \(offline\)/);
  });

  it("an API key: the Anthropic API, the key sent but never printed", () => {
    const s = selectModel({ env: { ANTHROPIC_API_KEY: SECRET } });
    expect(s.offline).toBe(false);
    expect(s.banner).toBe(`model: ${DEFAULT_MODEL} via the Anthropic API (ANTHROPIC_API_KEY)`);
    expect(s.client.apiKey).toBe(SECRET);
    expect(s.client.baseURL).toBe("https://api.anthropic.com");
    expect(s.banner).not.toContain("TESTSECRET");
  });

  it("an auth token: sent as the token, not as a key, never printed", () => {
    const s = selectModel({ env: { ANTHROPIC_AUTH_TOKEN: SECRET, MODEL_ID: "glm-4.6" } });
    expect(s.banner).toBe("model: glm-4.6 via the Anthropic API (ANTHROPIC_AUTH_TOKEN)");
    expect(s.client.authToken).toBe(SECRET);
    expect(s.client.apiKey).toBeNull();
    expect(s.banner).not.toContain("TESTSECRET");
  });

  it("a key AND a token: the key is used, the token ignored (the SDK takes only one)", () => {
    const s = selectModel({ env: { ANTHROPIC_API_KEY: SECRET, ANTHROPIC_AUTH_TOKEN: "other-TESTSECRET" } });
    expect(s.banner).toBe(`model: ${DEFAULT_MODEL} via the Anthropic API (ANTHROPIC_API_KEY; ANTHROPIC_AUTH_TOKEN ignored)`);
    expect(s.client.apiKey).toBe(SECRET);
    expect(s.client.authToken).toBeNull();
  });

  it("a base URL alone: that endpoint, without a key (a local Ollama)", () => {
    const s = selectModel({ env: { ANTHROPIC_BASE_URL: "http://localhost:11434", MODEL_ID: "qwen3" } });
    expect(s.offline).toBe(false);
    expect(s.banner).toBe("model: qwen3 via http://localhost:11434 (no key)");
    expect(s.client.baseURL).toBe("http://localhost:11434");
  });

  it("a base URL and a key: both, and the URL printed without credentials or query", () => {
    const s = selectModel({ env: { ANTHROPIC_API_KEY: SECRET, ANTHROPIC_BASE_URL: `https://user:${SECRET}@proxy.example/anthropic?key=${SECRET}` } });
    expect(s.banner).toBe(`model: ${DEFAULT_MODEL} via https://***@proxy.example/anthropic?… (ANTHROPIC_API_KEY)`);
    expect(s.banner).not.toContain("TESTSECRET");
    expect(printableUrl("http://127.0.0.1:8787/")).toBe("http://127.0.0.1:8787");
  });

  it("COURSE_OFFLINE=1 (or true) wins over a key; a blank key means offline", () => {
    expect(selectModel({ env: { ANTHROPIC_API_KEY: SECRET, COURSE_OFFLINE: "1" } }).banner).toBe(OFFLINE_BANNER);
    expect(selectModel({ env: { ANTHROPIC_API_KEY: SECRET, COURSE_OFFLINE: "true" } }).offline).toBe(true);
    expect(selectModel({ env: { ANTHROPIC_API_KEY: "   " } }).offline).toBe(true);
    expect(selectModel({ env: { ANTHROPIC_API_KEY: SECRET, COURSE_OFFLINE: "0" } }).offline).toBe(false);
  });

  it("a base URL that is not http(s) is a CourseError, not a crash later", () => {
    expect(() => selectModel({ env: { ANTHROPIC_BASE_URL: "localhost:11434" } })).toThrow(CourseError);
    expect(() => selectModel({ env: { ANTHROPIC_BASE_URL: "not a url" } })).toThrow(/ANTHROPIC_BASE_URL is not an http\(s\) URL/);
  });
});

describe(".env: a corrupt file is a CourseError naming the line, never quoting a key", () => {
  const dir = mkdtempSync(join(tmpdir(), "course-env-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const problem = (path: string) => {
    try {
      loadEnv(path);
      return null;
    } catch (e) {
      expect(e).toBeInstanceOf(CourseError);
      return (e as Error).message;
    }
  };

  it("a line that is not KEY=value", () => {
    const msg = problem(write("bad-line.env", `# my keys\nMODEL_ID=x\nANTHROPIC_API_KEY ${SECRET}\n`));
    expect(msg).toMatch(/^\.env line 3 is not a KEY=value line \(nor a # comment\)\. Fix it \(see \.env\.example\) or delete \.env to run offline\.$/);
    expect(msg).not.toContain("TESTSECRET");
  });

  it("a quote never closed", () => {
    const msg = problem(write("quote.env", `MODEL_ID=x\nANTHROPIC_API_KEY="${SECRET}\nOTHER=1\n`));
    expect(msg).toMatch(/^\.env line 2 opens a quote \("\) that is never closed\./);
    expect(msg).not.toContain("TESTSECRET");
  });

  it("a binary file", () => {
    expect(problem(write("binary.env", Buffer.from([0x41, 0x3d, 0x31, 0x0a, 0x00, 0xff, 0xfe, 0x01])))).toMatch(/^\.env line 2 is not text/);
    expect(envFileProblem("A=1\nB=\u0000")).toMatch(/^\.env line 2 is not text/);
  });

  it("a valid file loads (multi-line quoted values, comments, export) and the environment wins", () => {
    const key = `COURSE_TEST_${process.pid}`;
    process.env[`${key}_KEEP`] = "from-env";
    const path = write("good.env", `# comment\nexport ${key}_A=1\n${key}_B="two\nlines"\n${key}_KEEP=from-file\n\n`);
    expect(envFileProblem(`# c\nA="x\ny"\n`)).toBeNull();
    expect(problem(path)).toBeNull();
    expect(process.env[`${key}_A`]).toBe("1");
    expect(process.env[`${key}_B`]).toBe("two\nlines");
    expect(process.env[`${key}_KEEP`]).toBe("from-env");
    for (const k of ["A", "B", "KEEP"]) delete process.env[`${key}_${k}`];
  });
});
