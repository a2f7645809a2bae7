/**
 * s04_tool_errors: three tool failures in a row, each answered with an is_error result the model
 * reads and works around. Turn 1 asks read_json with a wrong field ("file" instead of "path")
 * and waits for a build file that never comes (the tool's deadline stops it). Turn 2 retries
 * read_json correctly, and the tool throws (the file is not valid JSON). Turn 3 reads the file as
 * text. The answer names the port and the two problems it met.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { Reply, Scenario, TurnContext } from "../types.ts";
import { call, firstLines, say, steps, text } from "./script.ts";
import { S04_TASK, S04_WORKSPACE } from "../../tasks.ts";

export { S04_TASK, S04_WORKSPACE };



function resultFor(ctx: TurnContext, name: string): Anthropic.ToolResultBlockParam | undefined {
  return ctx.results.find((r) => ctx.callOf(r)?.name === name);
}

function firstLine(ctx: TurnContext, r: Anthropic.ToolResultBlockParam | undefined): string {
  return r ? (ctx.resultText(r).trim().split("\n")[0] ?? "") : "(no result)";
}

export const s04ToolErrors: Scenario = {
  id: "s04_tool_errors",
  title: "Invalid input, a tool that hangs, a tool that throws: the model reads each error and recovers",
  task: S04_TASK,
  reply: steps(
    (): Reply => ({
      content: [
        text("I'll read the config and wait for the build at the same time."),
        // Wrong field name: the schema wants "path".
        call("read_json", { file: "config/server.json" }),
        call("wait_for_file", { path: "dist/ready.txt" }),
      ],
    }),
    (ctx) => {
      const json = resultFor(ctx, "read_json");
      const wait = resultFor(ctx, "wait_for_file");
      if (!json?.is_error) return say(`I expected read_json to refuse my input, but it answered: ${firstLine(ctx, json)}`);
      const waited = wait?.is_error ? `The build did not finish in time (${firstLine(ctx, wait)}), so I will not wait again. ` : "";
      return {
        content: [text(`${waited}read_json says: "${firstLine(ctx, json)}". It takes "path", not "file"; again:`), call("read_json", { path: "config/server.json" })],
      };
    },
    (ctx) => {
      const json = resultFor(ctx, "read_json");
      if (!json) return say("I expected a result from read_json, but there is none.");
      if (!json.is_error) return say(`config/server.json parsed fine:\n${firstLines(ctx.resultText(json))}`);
      return {
        content: [text(`read_json failed: "${firstLine(ctx, json)}". I'll read the file as plain text instead.`), call("read_file", { path: "config/server.json" })],
      };
    },
    (ctx) => {
      const file = resultFor(ctx, "read_file");
      const body = file ? ctx.resultText(file) : "";
      const port = /"port"\s*:\s*(\d+)/.exec(body)?.[1];
      if (file?.is_error || !port) return say(`I could not find the port: ${firstLine(ctx, file)}`);
      return say(
        `The port is ${port}. Two things to fix: config/server.json is not valid JSON (a trailing comma after "port": ${port}), ` +
          "and the build never wrote dist/ready.txt, so I stopped waiting for it.",
      );
    },
  ),
};
