import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { stringify } from "yaml";
import { modelLabel } from "../core/format.ts";
import type { AssistantMessageEvent, StreamFunction, StreamRequest } from "../core/provider.ts";
import type { AssistantMessage, Model } from "../core/types.ts";
import { priceUsage } from "../core/usage.ts";
import { priceFor } from "./pricing.ts";
import type { ReplaySession, ReplayTurn } from "./replay-format.ts";

/**
 * A stream function that also writes what it saw; `flush()` waits for the file to be current and
 * rejects only when that latest write failed (an earlier failure was made good by a later write).
 */
export type Recorder = StreamFunction & { flush(): Promise<void>; readonly session: ReplaySession };

/**
 * Wraps a stream function and records each finished assistant message as a replay turn, rewriting
 * `file` after every turn (so a crash loses at most the turn in flight). Provider errors are
 * recorded as `error` turns; aborted turns are not recorded. The file is what `loadReplayFile`
 * reads: replaying it gives the same text, tool calls (ids included) and usage.
 */
export function createRecorder(inner: StreamFunction, file: string): Recorder {
  const session: ReplaySession = { turns: [] };
  let writing: Promise<void> = Promise.resolve();
  const save = () => {
    const text = `# recorded by agent-run; replay with --replay ${file}\n${stringify(
      // `recorded`: what the model sent is replayed as it was, mistakes included (replay-check.ts).
      { ...(session.model && { model: session.model }), recorded: true, turns: session.turns },
      { lineWidth: 0 },
    )}`;
    // A failed write must not stop the later ones: each starts whatever became of the one before.
    writing = writing
      .catch(() => {})
      .then(async () => {
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, text);
      });
    return writing;
  };
  const stream = async function* (request: StreamRequest): AsyncGenerator<AssistantMessageEvent> {
    session.model ??= modelLabel(request.model);
    for await (const event of inner(request)) {
      if ((event.type === "done" || event.type === "error") && event.message.stopReason !== "aborted") {
        session.turns.push(toTurn(event.message, request.model, session.model));
        save().catch(() => {});
      }
      yield event;
    }
  };
  return Object.assign(stream, {
    session,
    flush: async () => {
      await save();
    },
  });
}

function toTurn(message: AssistantMessage, model: Model, fileModel: string): ReplayTurn {
  const turn: ReplayTurn = {};
  const label = modelLabel(model);
  if (label !== fileModel) turn.model = label;
  const thinking = message.content.filter((part) => part.type === "thinking");
  if (thinking.length > 0) {
    turn.thinking = thinking.map((part) => part.thinking).join("\n");
    const signature = thinking.find((part) => part.signature)?.signature;
    if (signature) turn.thinking_signature = signature;
  }
  const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  if (text) turn.text = text;
  const calls = message.content.flatMap((part) => (part.type === "toolCall" ? [part] : []));
  if (calls.length > 0) {
    turn.tool_calls = calls.map((call) =>
      call.parseError !== undefined
        ? { id: call.id, name: call.name, arguments_raw: call.partialJson ?? "" }
        : { id: call.id, name: call.name, arguments: call.arguments },
    );
  }
  const u = message.usage;
  turn.usage = { input: u.input, output: u.output, cache_read: u.cacheRead, cache_write: u.cacheWrite };
  // The cost goes in only when the table would not reproduce it (a spec's own pricing).
  const { pricing: _override, ...plain } = model;
  const tablePrice = priceUsage(structuredClone(u), priceFor(plain));
  if (!u.costUnknown && Math.abs(tablePrice.cost.total - u.cost.total) > 1e-12) turn.cost = u.cost.total;
  if (message.stopReason === "length") turn.stop = "length";
  if (message.stopReason === "error") {
    const info = message.error;
    turn.error = {
      kind: info?.kind ?? "unknown",
      ...(info?.status !== undefined && { status: info.status }),
      ...(info?.code !== undefined && { code: info.code }),
      message: info?.message ?? message.errorMessage ?? "provider error",
    };
  }
  return turn;
}
