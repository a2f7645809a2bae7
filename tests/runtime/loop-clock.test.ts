/**
 * `opts.clock` (s06) reaches the deadline of every later loop. s06's tests give the run a clock
 * and read a timeout on it; s07–s10 run s06's or s08's guards, s11 builds its own, and every Part
 * II and III lesson runs s11's loop through its extensions. Each reference loop from s11 on is
 * given a ManualClock and a deadline of an hour: the model calls a tool that waits on that clock
 * until its signal stops it, the test moves the clock an hour on, and the run must stop on
 * "timeout" at once. A loop that built its guards on the machine's time would wait an hour (the
 * test's bound stops it long before).
 */
import type Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../runtime/clock.ts";
import { LESSONS } from "../../runtime/manifest.ts";
import { call, say, text } from "../../runtime/scripted/scenarios/script.ts";
import type { Scenario } from "../../runtime/scripted/types.ts";
import { withinRunningTime } from "../../runtime/clock.ts";
import { ROOT, scripted } from "../../runtime/testing.ts";
import { scratchWorkspace } from "../../runtime/tools/files.ts";
import { SafeToolRegistry, defineTool } from "../../solutions/s04_tool_errors/define-tool.ts";

const HOUR = 3_600_000;
type Loop = (llm: ReturnType<typeof scripted>, history: Anthropic.MessageParam[], opts: Record<string, unknown>) => Promise<{ status: string; reason?: string }>;

/** Every lesson from s11 on whose entry exports a loop (s23 grades runs: it has none). */
const loops = LESSONS.filter((l) => Number(l.id.slice(1)) >= 11).map((l) => ({ id: l.id, dir: l.dir, entry: l.entry }));

const waits: Scenario = {
  id: "clock_test",
  title: "calls wait, then says done",
  reply: (ctx) => (ctx.step === 0 ? { content: [text("Waiting."), call("wait", {})] } : say("done")),
};

describe("opts.clock drives the deadline of every loop from s11 on", () => {
  it.for(loops)("$id: a deadline of an hour on the run's clock stops a waiting tool when that clock moves an hour", async ({ dir, entry }) => {
    const mod = (await import(`${ROOT}/solutions/${dir}/${entry}`)) as { runAgent?: Loop };
    if (!mod.runAgent) return; // a lesson without a loop of its own (s23)
    const clock = new ManualClock();
    const registry = new SafeToolRegistry([
      defineTool({
        name: "wait",
        description: "Waits until stopped.",
        input: z.object({}),
        readOnly: true,
        timeoutMs: 10 * HOUR,
        run: async (_input, ctx) => {
          await clock.sleep(Number.POSITIVE_INFINITY, ctx.signal);
          throw new Error("stopped");
        },
      }),
    ]);
    const root = await scratchWorkspace({ "notes.txt": "x\n" });
    const llm = scripted({ scenario: waits, clock });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Wait." }];
    const run = mod.runAgent(llm, history, { root, registry, clock, guards: { timeoutMs: HOUR }, approve: async () => ({ approved: true }), userConfigDir: root, hooks: [], cache: false });
    // Move the clock whenever the run waits on it, until it returns.
    let done = false;
    void run.finally(() => (done = true));
    const outcome = await withinRunningTime(
      (async () => {
        while (!done) {
          await Promise.race([run.catch(() => undefined), clock.blocked()]);
          if (done) break;
          clock.advance();
          await new Promise((resolve) => setImmediate(resolve));
        }
        return run;
      })(),
      30_000,
      () => new Error(`${dir}: the run did not stop 30 s after its clock passed its deadline: build its guards with new RunGuards(opts.guards, opts.signal, opts.clock)`),
    );
    expect(clock.deadlines, `${dir}: the run made no deadline on the clock it was given (opts.clock)`).toBeGreaterThan(0);
    expect(outcome.status === "stopped" ? outcome.reason : outcome.status, `${dir}: the run on a clock moved past its deadline`).toBe("timeout");
    expect(clock.now(), `${dir}: it stopped when its clock reached the deadline`).toBeGreaterThanOrEqual(HOUR);
  });
});
