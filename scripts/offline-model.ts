/**
 * npm run offline-model -- [--port 8787] [--scenario ID] [--faults 429,ok,500] [--latency MS] [--stream-delay MS]
 *
 * Serves the scripted model on 127.0.0.1 as an Anthropic-compatible endpoint: POST /v1/messages
 * (JSON or SSE), POST /v1/messages/count_tokens, GET /v1/models[/{id}]. Like the API, it wants a
 * key (any value, as x-api-key or Authorization: Bearer), an anthropic-version it knows (2023-06-01,
 * or 2026-10-21 as SDK 1.14 sends it, each with its own rules) and a model id of its table
 * (runtime/scripted/models.ts). Point any client at it:
 *   ANTHROPIC_BASE_URL=http://127.0.0.1:8787 ANTHROPIC_API_KEY=offline npm run lesson s01
 *   curl -s http://127.0.0.1:8787/v1/messages -H 'content-type: application/json' \
 *     -H 'authorization: Bearer offline' -H 'anthropic-version: 2026-10-21' \
 *     -d '{"model":"scripted-model","max_tokens":100,"messages":[{"role":"user","content":"list the files"}]}'
 * Per request, the headers x-scripted-scenario, x-scripted-fault and x-scripted-stream-delay-ms
 * ask for a scenario, a fault, or a streaming pace. docs/guide/compatibility.md says what it
 * answers like the API and what it answers differently.
 */
import { parseArgs } from "node:util";
import { npmSwallowed } from "./lib/args.ts";
import { parseFaultList } from "../runtime/scripted/faults.ts";
import { SCENARIOS } from "../runtime/scripted/scenarios/index.ts";
import { MODEL_TABLE } from "../runtime/scripted/models.ts";
import { startServer } from "../runtime/scripted/server.ts";

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: "string", default: "8787" },
      host: { type: "string", default: "127.0.0.1" },
      scenario: { type: "string" },
      faults: { type: "string" },
      latency: { type: "string" },
      "stream-delay": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (e) {
  fail(`${(e as Error).message}\nUsage: npm run offline-model -- --port 8787 [--scenario ID] [--faults 429,ok,500]`);
}
const swallowed = npmSwallowed();
if (swallowed.length > 0) fail(`unknown flag ${swallowed.join(", ")} (npm kept it for itself: put \`--\` before the flags)\nUsage: npm run offline-model -- --port 8787 [--scenario ID] [--faults 429,ok,500]`);
if (values.help) {
  console.log("Usage: npm run offline-model -- --port 8787 [--scenario ID] [--faults 429,ok,500] [--latency MS] [--stream-delay MS]");
  console.log(`Scenarios: ${SCENARIOS.map((s) => s.id).join(", ")}`);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a number from 0 to 65535, not "${values.port}"`);
if (values.scenario && !SCENARIOS.some((s) => s.id === values.scenario || s.id.startsWith(`${values.scenario}_`)))
  fail(`unknown scenario "${values.scenario}"; known: ${SCENARIOS.map((s) => s.id).join(", ")}`);
let faults;
try {
  faults = values.faults ? parseFaultList(values.faults) : undefined;
} catch (e) {
  fail((e as Error).message);
}
const num = (v: string | undefined, name: string) => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) fail(`--${name} must be a number of milliseconds, not "${v}"`);
  return n;
};

try {
  const running = await startServer({
    port,
    host: values.host,
    ...(values.scenario ? { scenario: values.scenario } : {}),
    ...(faults ? { faults } : {}),
    ...(values.latency ? { latencyMs: num(values.latency, "latency") } : {}),
    ...(values["stream-delay"] ? { streamDelayMs: num(values["stream-delay"], "stream-delay") } : {}),
  });
  console.log(`scripted model (offline) listening on ${running.url}  (POST /v1/messages, /v1/messages/count_tokens, GET /v1/models)`);
  console.log(`use it: ANTHROPIC_BASE_URL=${running.url} ANTHROPIC_API_KEY=offline npm run lesson s01`);
  console.log(`any client: base URL as above (some want /v1 after it), any API key, a model the API serves (GET /v1/models lists them; retired ones get the API's 404): ${MODEL_TABLE.filter((m) => m.lifecycle !== "retired").flatMap((m) => [m.id, ...m.aliases]).join(", ")}`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (e) {
  const err = e as NodeJS.ErrnoException;
  fail(err.code === "EADDRINUSE" ? `port ${port} is already in use: pick another with --port` : `could not start: ${err.message}`);
}
