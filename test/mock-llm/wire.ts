/**
 * SSE frames for one scripted reply in each wire format the mock LLM speaks. A frame tagged "text"
 * or "tool" marks where a cut fault may strike.
 */
export interface Frame {
  data: string;
  tag?: "text" | "tool";
}

export interface MockToolCall {
  /** null: a tool call without an id (Chat Completions only; other formats always get one). */
  id?: string | null;
  name: string;
  arguments?: Record<string, unknown>;
  /** Sent instead of `arguments`, verbatim: use invalid JSON to script a malformed call. */
  argumentsRaw?: string;
}

/** Token counts as the core counts them: `input` excludes cache reads (OpenAI formats add them back on the wire). */
export interface MockUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface ReplyContent {
  text?: string;
  thinking?: string;
  thinkingSignature?: string;
  toolCalls?: MockToolCall[];
  usage?: MockUsage;
  stop?: "stop" | "length";
  /** Send no usage at all: Anthropic without `usage` objects, Responses without `response.usage`, Chat without the usage chunk. */
  noUsage?: boolean;
  /** Send an empty delta before each real one (text, tool arguments), as some servers do. */
  emptyDeltas?: boolean;
  /** Responses: end with `response.incomplete` for this reason (e.g. "content_filter"). */
  incompleteReason?: string;
  /** Send only this many characters of the last tool call's arguments: a call the output-token limit cut (pair with `stop: "length"`). */
  truncateLastCall?: number;
  /** Chat Completions: send each tool call's name and arguments in a single chunk. */
  argumentsWhole?: boolean;
  /** Chat Completions: leave out the tool calls' `index` (some servers do). */
  noToolIndex?: boolean;
  /** An in-band error event after the first frames, e.g. { type: "overloaded_error", message: "Overloaded" }. */
  streamError?: { type: string; message: string };
}

/** Splits text into pieces of `size` characters so deltas really stream. */
function pieces(text: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function argsOf(call: MockToolCall, reply?: ReplyContent): string {
  const args = call.argumentsRaw ?? JSON.stringify(call.arguments ?? {});
  const calls = reply?.toolCalls ?? [];
  const last = calls.length > 0 && calls[calls.length - 1] === call;
  return last && reply?.truncateLastCall !== undefined ? args.slice(0, reply.truncateLastCall) : args;
}

/** The pieces of `text` to stream, each preceded by an empty one when the reply asks for empty deltas. */
function deltas(text: string, reply: ReplyContent): string[] {
  return pieces(text).flatMap((p) => (reply.emptyDeltas ? ["", p] : [p]));
}

function sse(event: string | undefined, payload: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;
}

/** Anthropic Messages API stream. */
export function anthropicFrames(reply: ReplyContent, model: string, n: number): Frame[] {
  const u = reply.usage ?? {};
  const frames: Frame[] = [];
  const push = (type: string, body: Record<string, unknown>, tag?: Frame["tag"]) =>
    frames.push({ data: sse(type, { type, ...body }), ...(tag && { tag }) });
  push("message_start", {
    message: {
      id: `msg_mock_${n}`,
      type: "message",
      role: "assistant",
      content: [],
      model,
      stop_reason: null,
      stop_sequence: null,
      ...(!reply.noUsage && {
        usage: {
          input_tokens: u.input ?? 0,
          cache_read_input_tokens: u.cacheRead ?? 0,
          cache_creation_input_tokens: u.cacheWrite ?? 0,
          output_tokens: 1,
        },
      }),
    },
  });
  frames.push({ data: sse("ping", { type: "ping" }) });
  let index = 0;
  if (reply.thinking !== undefined) {
    push("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const p of pieces(reply.thinking))
      push("content_block_delta", { index, delta: { type: "thinking_delta", thinking: p } });
    push("content_block_delta", {
      index,
      delta: { type: "signature_delta", signature: reply.thinkingSignature ?? "sig" },
    });
    push("content_block_stop", { index });
    index++;
  }
  if (reply.streamError) frames.push({ data: sse("error", { type: "error", error: reply.streamError }) });
  if (reply.text) {
    push("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const p of deltas(reply.text, reply))
      push("content_block_delta", { index, delta: { type: "text_delta", text: p } }, "text");
    push("content_block_stop", { index });
    index++;
  }
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id ?? `toolu_mock_${n}_${i}`;
    push("content_block_start", {
      index,
      content_block: { type: "tool_use", id, name: call.name, input: {} },
    });
    for (const p of deltas(argsOf(call, reply), reply)) {
      push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }, "tool");
    }
    push("content_block_stop", { index });
    index++;
  }
  const stop = reply.stop === "length" ? "max_tokens" : reply.toolCalls?.length ? "tool_use" : "end_turn";
  push("message_delta", {
    delta: { stop_reason: stop, stop_sequence: null },
    ...(!reply.noUsage && { usage: { output_tokens: u.output ?? 0 } }),
  });
  push("message_stop", {});
  return frames;
}

/**
 * OpenAI Responses API stream. A reasoning item carries `encrypted_content` only when the request
 * asked for it (`encrypted`, from `include: ["reasoning.encrypted_content"]`), as the real API does.
 */
export function responsesFrames(reply: ReplyContent, model: string, n: number, encrypted = true): Frame[] {
  const u = reply.usage ?? {};
  const frames: Frame[] = [];
  let seq = 0;
  const push = (type: string, body: Record<string, unknown>, tag?: Frame["tag"]) =>
    frames.push({ data: sse(type, { type, sequence_number: seq++, ...body }), ...(tag && { tag }) });
  const id = `resp_mock_${n}`;
  const base = { id, object: "response", model, output: [] as unknown[] };
  push("response.created", { response: { ...base, status: "in_progress" } });
  let outputIndex = 0;
  if (reply.thinking !== undefined) {
    const item = { type: "reasoning", id: `rs_mock_${n}`, summary: [] as unknown[] };
    push("response.output_item.added", { output_index: outputIndex, item });
    for (const p of pieces(reply.thinking)) {
      push("response.reasoning_summary_text.delta", {
        item_id: item.id,
        output_index: outputIndex,
        summary_index: 0,
        delta: p,
      });
    }
    const done = {
      ...item,
      summary: [{ type: "summary_text", text: reply.thinking }],
      ...(encrypted && { encrypted_content: reply.thinkingSignature ?? "enc" }),
    };
    push("response.output_item.done", { output_index: outputIndex, item: done });
    base.output.push(done);
    outputIndex++;
  }
  if (reply.streamError)
    push("error", { code: reply.streamError.type, message: reply.streamError.message, param: null });
  if (reply.text) {
    const itemId = `msg_mock_${n}`;
    push("response.output_item.added", {
      output_index: outputIndex,
      item: { type: "message", id: itemId, role: "assistant", status: "in_progress", content: [] },
    });
    for (const p of deltas(reply.text, reply)) {
      push(
        "response.output_text.delta",
        { item_id: itemId, output_index: outputIndex, content_index: 0, delta: p },
        "text",
      );
    }
    const item = {
      type: "message",
      id: itemId,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    };
    push("response.output_item.done", { output_index: outputIndex, item });
    base.output.push(item);
    outputIndex++;
  }
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const itemId = `fc_mock_${n}_${i}`;
    const callId = call.id ?? `call_mock_${n}_${i}`;
    const args = argsOf(call, reply);
    push("response.output_item.added", {
      output_index: outputIndex,
      item: {
        type: "function_call",
        id: itemId,
        call_id: callId,
        name: call.name,
        arguments: "",
        status: "in_progress",
      },
    });
    for (const p of deltas(args, reply)) {
      push(
        "response.function_call_arguments.delta",
        { item_id: itemId, output_index: outputIndex, delta: p },
        "tool",
      );
    }
    push("response.function_call_arguments.done", {
      item_id: itemId,
      output_index: outputIndex,
      arguments: args,
    });
    const item = {
      type: "function_call",
      id: itemId,
      call_id: callId,
      name: call.name,
      arguments: args,
      status: "completed",
    };
    push("response.output_item.done", { output_index: outputIndex, item });
    base.output.push(item);
    outputIndex++;
  }
  const usage = {
    input_tokens: (u.input ?? 0) + (u.cacheRead ?? 0),
    input_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
    output_tokens: u.output ?? 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: (u.input ?? 0) + (u.cacheRead ?? 0) + (u.output ?? 0),
  };
  const usageField = reply.noUsage ? {} : { usage };
  if (reply.stop === "length" || reply.incompleteReason !== undefined) {
    push("response.incomplete", {
      response: {
        ...base,
        status: "incomplete",
        incomplete_details: { reason: reply.incompleteReason ?? "max_output_tokens" },
        ...usageField,
      },
    });
  } else {
    push("response.completed", { response: { ...base, status: "completed", ...usageField } });
  }
  return frames;
}

/** OpenAI Chat Completions stream (also what openai-compatible servers speak). */
export function chatFrames(reply: ReplyContent, model: string, n: number): Frame[] {
  const u = reply.usage ?? {};
  const frames: Frame[] = [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, tag?: Frame["tag"]) =>
    frames.push({
      data: sse(undefined, {
        id: `chatcmpl-mock-${n}`,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      }),
      ...(tag && { tag }),
    });
  chunk({ role: "assistant", content: "" });
  if (reply.thinking !== undefined) for (const p of pieces(reply.thinking)) chunk({ reasoning_content: p });
  if (reply.streamError) frames.push({ data: sse(undefined, { error: reply.streamError }) });
  if (reply.emptyDeltas) chunk({});
  if (reply.text) for (const p of deltas(reply.text, reply)) chunk({ content: p }, null, "text");
  for (const [i, call] of (reply.toolCalls ?? []).entries()) {
    const id = call.id === null ? undefined : (call.id ?? `call_mock_${n}_${i}`);
    const args = argsOf(call, reply);
    const index = reply.noToolIndex ? {} : { index: i };
    if (reply.argumentsWhole) {
      chunk({
        tool_calls: [
          { ...index, ...(id && { id }), type: "function", function: { name: call.name, arguments: args } },
        ],
      });
      continue;
    }
    chunk({
      tool_calls: [
        { ...index, ...(id && { id }), type: "function", function: { name: call.name, arguments: "" } },
      ],
    });
    for (const p of deltas(args, reply))
      chunk({ tool_calls: [{ ...index, function: { arguments: p } }] }, null, "tool");
  }
  chunk({}, reply.stop === "length" ? "length" : reply.toolCalls?.length ? "tool_calls" : "stop");
  if (!reply.noUsage) {
    frames.push({
      data: sse(undefined, {
        id: `chatcmpl-mock-${n}`,
        object: "chat.completion.chunk",
        created: 1_700_000_000,
        model,
        choices: [],
        usage: {
          prompt_tokens: (u.input ?? 0) + (u.cacheRead ?? 0),
          completion_tokens: u.output ?? 0,
          total_tokens: (u.input ?? 0) + (u.cacheRead ?? 0) + (u.output ?? 0),
          prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
        },
      }),
    });
  }
  frames.push({ data: "data: [DONE]\n\n" });
  return frames;
}

/** A Chat Completions answer that is not streamed: what a server that ignores `stream: true` sends. */
export function chatDocument(reply: ReplyContent, model: string, n: number): Record<string, unknown> {
  const u = reply.usage ?? {};
  const calls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_mock_${n}_${i}`,
    type: "function",
    function: { name: call.name, arguments: argsOf(call, reply) },
  }));
  return {
    id: `chatcmpl-mock-${n}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          ...(calls.length > 0 && { tool_calls: calls }),
        },
        finish_reason: reply.stop === "length" ? "length" : calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    ...(!reply.noUsage && {
      usage: {
        prompt_tokens: (u.input ?? 0) + (u.cacheRead ?? 0),
        completion_tokens: u.output ?? 0,
        total_tokens: (u.input ?? 0) + (u.cacheRead ?? 0) + (u.output ?? 0),
      },
    }),
  };
}
