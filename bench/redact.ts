/**
 * Redaction speed (src/output/redact.ts): every event, every request and every output goes
 * through it. Run: `node bench/redact.ts` (Node 24). Figures are CPU time. Cases, each a median
 * of 7 passes:
 * - 1 MB of linter output, with the secrets an action run seeds (20, each in 12 forms);
 * - 1 MB of file paths (the base64 prefilter's worst ordinary text: long runs of letters);
 * - a 1 MB base64 blob (an image read by the model);
 * - a 500-turn transcript sent through `redactRequests` (each message redacted once, not per turn);
 * - a 40 KB tool result on its way out of a turn: events.jsonl's two lines that hold it, the
 *   renderer's copies of both events, the next request (the redactor remembers the first answer);
 * - a saved command output of 23 MB (`seq 1 3000000`) at the end of a run: read and redacted
 *   (redactFilesIn), and after an early look found it clean (lookForSecrets), wall time;
 * - the early look at a saved output of 23 MB of base64 wrapped at 76 characters (`base64` of 17
 *   MB of random bytes), wall time: the look's worst ordinary output, base64 through and through;
 *   the same in one line (`base64 -w0`), and 23 MB of random bytes (`cat` of a binary file).
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StreamFunction } from "../src/core/provider.ts";
import type { AgentMessage } from "../src/core/types.ts";
import { createEventsWriter } from "../src/output/events-writer.ts";
import { createRedactor } from "../src/output/redact.ts";
import { lookForSecrets, redactFilesIn } from "../src/output/redact-files.ts";
import { createMessageRedactions } from "../src/run/message-redactions.ts";
import { redactRequests } from "../src/run/redact-requests.ts";
import { transcriptMessages } from "../src/run/resume/transcript-file.ts";

const RUNS = 7;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
}

/** CPU milliseconds of each of RUNS calls (after one warm-up): steadier than wall time on a shared machine. */
function time(fn: () => void): number[] {
  fn();
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = process.cpuUsage();
    fn();
    const used = process.cpuUsage(started);
    out.push((used.user + used.system) / 1000);
  }
  return out;
}

const format = (values: number[]) =>
  `median ${median(values).toFixed(1)} ms cpu (${values.map((v) => v.toFixed(1)).join(", ")})`;

// Random values with no common prefix, as real keys and tokens are (a shared prefix lets the
// regular expression engine skip ahead and would flatter the figures).
const secrets = Array.from({ length: 20 }, () => randomBytes(24).toString("base64url"));
const redactor = createRedactor({ extra: secrets });
const repeat = (line: string, bytes: number) => line.repeat(Math.ceil(bytes / line.length));
const lint = repeat(
  "src/foo/bar.ts:12:3 error  Unexpected any. Specify a different type  @typescript-eslint/no-explicit-any\n",
  1e6,
);
const paths = Array.from(
  { length: 22_000 },
  (_, i) => `src/components/Widget${i}/useWidgetState${i}Hook.tsx`,
).join("\n");
const blob = Buffer.from(repeat("\u0089PNG binary-ish bytes \u0000\u00ff", 750_000), "latin1").toString(
  "base64",
);

console.log("redact, 20 seeded secrets:");
console.log(`  1 MB lint output: ${format(time(() => redactor.redact(lint)))}`);
console.log(`  1 MB of paths: ${format(time(() => redactor.redact(paths)))}`);
console.log(`  1 MB base64 blob: ${format(time(() => redactor.redact(blob)))}`);

const model = { provider: "anthropic", id: "m" };
const messages: AgentMessage[] = [];
for (let turn = 0; turn < 500; turn++) {
  messages.push({
    role: "toolResult",
    toolCallId: `c${turn}`,
    toolName: "read",
    // Each its own text, as a session's results are: the redactor remembers texts it has seen.
    content: [{ type: "text", text: `turn ${turn}\n${lint.slice(0, 40_000)}` }],
    details: {},
    isError: false,
    timestamp: turn,
  });
}
const signal = new AbortController().signal;
const inner: StreamFunction = async function* () {};
console.log("redactRequests, 500-turn transcript of 40 KB results:");
const perTurn: number[] = [];
const redactions = createMessageRedactions(redactor);
const stream = redactRequests(inner, redactor, redactions);
const started = process.cpuUsage();
for (let turn = 1; turn <= messages.length; turn++) {
  const t = process.cpuUsage();
  for await (const _ of stream({
    model,
    systemPrompt: "s",
    messages: messages.slice(0, turn),
    tools: [],
    thinkingLevel: "off",
    signal,
  })) {
  }
  const used = process.cpuUsage(t);
  perTurn.push((used.user + used.system) / 1000);
}
const session = process.cpuUsage(started);
console.log(`  whole session: ${((session.user + session.system) / 1000).toFixed(0)} ms cpu`);
console.log(`  last 50 turns: median ${median(perTurn.slice(-50)).toFixed(2)} ms cpu a turn`);
// What the run's end adds for transcript.json: the messages were redacted for the requests.
const ending = process.cpuUsage();
const transcript = transcriptMessages(messages, redactions);
const ended = process.cpuUsage(ending);
console.log(
  `  transcript.json's messages at the end (${(transcript.json.length / 1e6).toFixed(1)} MB): ${((ended.user + ended.system) / 1000).toFixed(0)} ms cpu`,
);

// One result on its way out, as a run redacts it: each pass a result of its own.
const outputs = mkdtempSync(path.join(os.tmpdir(), "agent-run-bench-events-"));
const events = createEventsWriter(path.join(outputs, "events.jsonl"), { redact: redactor.redact });
let pass = 0;
const result = () => ({
  content: [{ type: "text", text: `pass ${pass++}\n${lint.slice(0, 40_000)}` }],
  details: {},
});
console.log("a 40 KB tool result on its way out of a turn:");
console.log(`  one scan: ${format(time(() => redactor.redact(result().content[0]?.text ?? "")))}`);
console.log(
  `  five redactions (two event lines, two renderer copies, the request): ${format(
    time(() => {
      const made = result();
      const end = { type: "tool_execution_end", toolCallId: "c1", toolName: "read", result: made };
      const message = { type: "message_end", message: { role: "toolResult", ...made } };
      events.write(end);
      redactor.redactDeep(end);
      events.write(message);
      redactor.redactDeep(message);
      redactor.redactDeep(message.message);
    }),
  )}`,
);
await events.close();
rmSync(outputs, { recursive: true, force: true });

// The saved output of `seq 1 3000000`, as the bash tool leaves it in tool-output/.
const root = mkdtempSync(path.join(os.tmpdir(), "agent-run-bench-saved-"));
const dir = path.join(root, "tool-output");
mkdirSync(dir);
const file = path.join(dir, "agent-run-bash-call.log");
writeFileSync(file, `${Array.from({ length: 3_000_000 }, (_, i) => i + 1).join("\n")}\n`);
const wall = async (fn: () => Promise<unknown>): Promise<number[]> => {
  await fn();
  const out: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
};
const seen = await lookForSecrets(file, redactor);
const earlier = new Map([[file, Promise.resolve(seen)]]);
const ms = (values: number[]) =>
  `median ${median(values).toFixed(1)} ms wall (${values.map((v) => v.toFixed(0)).join(", ")})`;
console.log("saved output of 23 MB at the end of a run:");
console.log(`  read and redacted: ${ms(await wall(() => redactFilesIn(dir, redactor)))}`);
console.log(`  after a clean early look: ${ms(await wall(() => redactFilesIn(dir, redactor, { earlier })))}`);
console.log(`  the early look itself: ${ms(await wall(() => lookForSecrets(file, redactor)))}`);
const dump = path.join(dir, "agent-run-bash-base64.log");
writeFileSync(dump, `${randomBytes(17_000_000).toString("base64").replace(/.{76}/g, "$&\n")}\n`);
console.log(
  `  23 MB of wrapped base64, the early look: ${ms(await wall(() => lookForSecrets(dump, redactor)))}`,
);
const line = path.join(dir, "agent-run-bash-base64-line.log");
writeFileSync(line, `${randomBytes(17_000_000).toString("base64")}\n`);
console.log(
  `  23 MB of base64 in one line, the early look: ${ms(await wall(() => lookForSecrets(line, redactor)))}`,
);
const binary = path.join(dir, "agent-run-bash-binary.log");
writeFileSync(binary, randomBytes(23_000_000));
console.log(
  `  23 MB of random bytes, the early look: ${ms(await wall(() => lookForSecrets(binary, redactor)))}`,
);
rmSync(root, { recursive: true, force: true });
