/**
 * The scripted model over HTTP: POST /v1/messages (JSON or SSE) and /v1/messages/count_tokens on
 * 127.0.0.1, so curl, other SDKs, and the docs can use it. Every request goes to the same
 * `ScriptedModel` as the in-process client uses.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ScriptedModel, type ScriptedModelOptions } from "./model.ts";

export interface RunningServer {
  server: Server;
  model: ScriptedModel;
  port: number;
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function handle(model: ScriptedModel, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : await readBody(req);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  const request = new Request(`http://127.0.0.1${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    ...(body ? { body: new Uint8Array(body) } : {}),
    signal: abort.signal,
  });
  let response: Response;
  try {
    response = await model.handle(request);
  } catch (e) {
    if (abort.signal.aborted) return; // the client went away: nobody to answer
    throw e;
  }
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  } catch {
    // A scripted stream_cut (or the client going away): send what was written, then close the
    // connection without ending the response, so the client sees it cut mid-stream.
    const socket = res.socket;
    if (socket && !socket.destroyed) socket.end(() => socket.destroy());
    else res.destroy();
  }
}

export function startServer(options: ScriptedModelOptions & { port?: number; host?: string } = {}): Promise<RunningServer> {
  const { port = 0, host = "127.0.0.1", ...modelOptions } = options;
  const model = new ScriptedModel(modelOptions);
  const server = createServer((req, res) => {
    handle(model, req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(e) } }));
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      resolve({
        server,
        model,
        port: actual,
        url: `http://${host}:${actual}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
