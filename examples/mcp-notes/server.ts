/**
 * A small MCP server for lesson s17 and the final agent: team notes over stdio, offline.
 *
 *   search      {query}  the notes whose title or text contains the words (text)
 *   read_note   {id}     one note (text); an unknown id is an error result (isError)
 *   diagram     {}       the lockout rule as a small PNG (image content)
 *
 * With MCP_NOTES_FAULTS=1 it also has `crash` (the process exits during the call) and `hang`
 * (never answers), so a client's handling of a server that dies or stalls can be tested.
 *
 * Start it from a config file in the `mcpServers` format (examples/mcp-notes/mcp.json):
 *   npm run agent -- --mcp-config examples/mcp-notes/mcp.json "What do our notes say about lockouts?"
 * Built with the SDK's server side (McpServer, StdioServerTransport); it logs to stderr only,
 * since stdout carries the protocol.
 */
import { writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

export const NOTES = [
  { id: "lockout", title: "Account lockout", text: "An account locks after 3 failed logins in a row (MAX_FAILED_ATTEMPTS). Support unlocks it; the user gets an email." },
  { id: "releases", title: "Releases", text: "We release on Tuesdays. Release notes go to NOTES.md, newest first." },
  { id: "oncall", title: "On-call", text: "The on-call engineer answers pages within 15 minutes and writes up every incident." },
];

/** A 1×1 PNG: the image content a tool may return. */
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "search",
  { description: "Search the team's notes; returns the matching notes' ids and titles.", inputSchema: { query: z.string().min(1).describe("Words to look for") } },
  async ({ query }) => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const hits = NOTES.filter((n) => words.some((w) => `${n.title} ${n.text}`.toLowerCase().includes(w.replace(/s$/, ""))));
    const text = hits.length ? hits.map((n) => `${n.id}: ${n.title}`).join("\n") : `No note mentions "${query}".`;
    return { content: [{ type: "text", text }] };
  },
);

server.registerTool(
  "read_note",
  { description: "Read one note by its id (search gives the ids).", inputSchema: { id: z.string().describe("The note's id") } },
  async ({ id }) => {
    const note = NOTES.find((n) => n.id === id);
    if (!note) return { content: [{ type: "text", text: `No note has the id "${id}". Known ids: ${NOTES.map((n) => n.id).join(", ")}.` }], isError: true };
    return { content: [{ type: "text", text: `# ${note.title}\n\n${note.text}` }] };
  },
);

server.registerTool("diagram", { description: "The lockout rule as a small picture." }, async () => ({
  content: [
    { type: "text", text: "The lockout rule, as a picture:" },
    { type: "image", data: PIXEL, mimeType: "image/png" },
  ],
}));

if (process.env.MCP_NOTES_FAULTS === "1") {
  server.registerTool("crash", { description: "Exits during the call (for tests)." }, async () => {
    process.exit(3);
  });
  server.registerTool("hang", { description: "Never answers (for tests)." }, () => new Promise<never>(() => {}));
}

// Tests ask the server to say where it runs, to check that the client stops it.
if (process.env.MCP_NOTES_PIDFILE) writeFileSync(process.env.MCP_NOTES_PIDFILE, String(process.pid));

await server.connect(new StdioServerTransport());
console.error("notes MCP server ready on stdio");
