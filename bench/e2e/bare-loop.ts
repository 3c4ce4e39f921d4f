/**
 * The baseline: the least code that drives the same session: fetch, a minimal SSE parse, the
 * four tools done with plain node:fs and child_process, the transcript sent back each turn. No
 * spec, validation, hooks, events, truncation, outputs or patch. Run as a child process:
 * `node bare-loop.ts anthropic|openai BASE_URL WORKSPACE`; prints the number of turns.
 */
import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

const [wire, baseUrl, workspace] = process.argv.slice(2) as ["anthropic" | "openai", string, string];
const TOOLS = ["read", "edit", "bash", "write"];

function bash(command: string): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd: workspace, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("close", (code) => resolve(`${out}\nexit ${code}`));
  });
}

async function runTool(call: Call): Promise<string> {
  const file = path.join(workspace, String(call.args.path ?? ""));
  switch (call.name) {
    case "read":
      return readFile(file, "utf8");
    case "edit": {
      let text = await readFile(file, "utf8");
      for (const edit of call.args.edits as { oldText: string; newText: string }[])
        text = text.replace(edit.oldText, edit.newText);
      await writeFile(file, text);
      return "edited";
    }
    case "bash":
      return bash(String(call.args.command));
    case "write":
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, String(call.args.content));
      return "written";
    default:
      return `unknown tool ${call.name}`;
  }
}

async function* sseEvents(response: Response): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .find((line) => line.startsWith("data: "));
      buffer = buffer.slice(end + 2);
      if (data && data !== "data: [DONE]") yield JSON.parse(data.slice(6)) as Record<string, unknown>;
      end = buffer.indexOf("\n\n");
    }
  }
}

const schema = { type: "object", properties: {}, additionalProperties: true };
const messages: unknown[] = [{ role: "user", content: "Do the benchmark task." }];
let turns = 0;
while (true) {
  turns++;
  const body =
    wire === "anthropic"
      ? {
          model: "claude-sonnet-5-5",
          max_tokens: 8192,
          stream: true,
          messages,
          tools: TOOLS.map((name) => ({ name, description: name, input_schema: schema })),
        }
      : {
          model: "gpt-5.4-mini",
          stream: true,
          input: messages,
          tools: TOOLS.map((name) => ({ type: "function", name, description: name, parameters: schema })),
        };
  const response = await fetch(`${baseUrl}${wire === "anthropic" ? "/v1/messages" : "/v1/responses"}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer x", "x-api-key": "x" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const calls: Call[] = [];
  const partial = new Map<number, { id: string; name: string; json: string }>();
  let text = "";
  for await (const event of sseEvents(response)) {
    if (wire === "anthropic") {
      const block = event.content_block as { type: string; id: string; name: string } | undefined;
      const delta = event.delta as { type: string; text?: string; partial_json?: string } | undefined;
      const index = event.index as number;
      if (event.type === "content_block_start" && block?.type === "tool_use")
        partial.set(index, { id: block.id, name: block.name, json: "" });
      else if (delta?.type === "text_delta") text += delta.text;
      else if (delta?.type === "input_json_delta") {
        const p = partial.get(index);
        if (p) p.json += delta.partial_json;
      }
    } else if (event.type === "response.output_text.delta") text += String(event.delta);
    else if (event.type === "response.output_item.done") {
      const item = event.item as { type: string; call_id: string; name: string; arguments: string };
      if (item.type === "function_call")
        calls.push({
          id: item.call_id,
          name: item.name,
          args: JSON.parse(item.arguments) as Record<string, unknown>,
        });
    }
  }
  for (const p of partial.values())
    calls.push({ id: p.id, name: p.name, args: JSON.parse(p.json || "{}") as Record<string, unknown> });
  if (calls.length === 0) break;
  const results = await Promise.all(calls.map(runTool));
  if (wire === "anthropic") {
    messages.push({
      role: "assistant",
      content: [
        ...(text ? [{ type: "text", text }] : []),
        ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
      ],
    });
    messages.push({
      role: "user",
      content: calls.map((c, i) => ({ type: "tool_result", tool_use_id: c.id, content: results[i] })),
    });
  } else {
    for (const [i, c] of calls.entries()) {
      messages.push({
        type: "function_call",
        call_id: c.id,
        name: c.name,
        arguments: JSON.stringify(c.args),
      });
      messages.push({ type: "function_call_output", call_id: c.id, output: results[i] });
    }
  }
}
process.stdout.write(`${turns}\n`);
