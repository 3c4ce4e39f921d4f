import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { StreamRequest } from "../core/provider.ts";
import type { AgentMessage, ImageContent, TextContent, ThinkingLevel } from "../core/types.ts";
import { toolParametersJsonSchema } from "../core/validate.ts";
import { SDK_MODELS, undated } from "./sdk-models.ts";
import { addItemBytes, addList, bodyBytes, perMessage } from "./wire-json.ts";
import type { Json } from "./wire-utils.ts";

/** Default `max_tokens` when the model sets no `maxOutputTokens`. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 16_384;

/** Thinking budget in tokens per level, for models with budget-based extended thinking. */
export const ANTHROPIC_THINKING_BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 4096,
  medium: 10_000,
  high: 20_000,
  xhigh: 32_000,
};

/** Effort per level, for models with adaptive thinking. */
const EFFORT: Record<Exclude<ThinkingLevel, "off">, "low" | "medium" | "high" | "xhigh"> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
};

/**
 * Models that take adaptive thinking (`thinking: { type: "adaptive" }` with an effort) rather than
 * a token budget: every Claude 4.6 and later (the 5 family refuses budgets), and whatever the SDK
 * lists as warning against `type: "enabled"` (`claude-mythos-preview`, `claude-opus-4-6`).
 */
export function wantsAdaptiveThinking(id: string): boolean {
  return ADAPTIVE.test(id) || (SDK_MODELS.anthropic.adaptiveThinking ?? []).includes(undated(id));
}

const ADAPTIVE = /claude-(opus|sonnet|haiku|fable|mythos)-(4-[6-9]|[5-9])/;
const CACHE = { type: "ephemeral" } as const;

/**
 * Maps a core request to Messages API parameters. Prompt caching: breakpoints on the system prompt,
 * the last tool and the last two user turns (4, Anthropic's maximum), so each turn reads what the
 * previous one wrote. The blocks are kept for later requests (./wire-json.ts): not to be changed.
 */
export function buildAnthropicParams(request: StreamRequest): MessageCreateParamsStreaming {
  const { model, thinkingLevel } = request;
  const messages = toAnthropicMessages(request);
  markLatestTurns(messages, 2);
  const tools: Tool[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: toolParametersJsonSchema(tool) as Tool["input_schema"],
  }));
  const lastTool = tools.at(-1);
  if (lastTool) lastTool.cache_control = CACHE;
  let maxTokens = model.maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  const params: MessageCreateParamsStreaming = {
    model: model.id,
    max_tokens: maxTokens,
    messages,
    stream: true,
  };
  if (request.systemPrompt)
    params.system = [{ type: "text", text: request.systemPrompt, cache_control: CACHE }];
  if (tools.length > 0) params.tools = tools;
  if (thinkingLevel !== "off") {
    if (wantsAdaptiveThinking(model.id)) {
      params.thinking = { type: "adaptive" };
      params.output_config = { effort: EFFORT[thinkingLevel] };
    } else {
      const budget = ANTHROPIC_THINKING_BUDGETS[thinkingLevel];
      if (maxTokens <= budget) maxTokens = budget + 4096;
      params.max_tokens = maxTokens;
      params.thinking = { type: "enabled", budget_tokens: budget };
    }
  } else if (model.temperature !== undefined) {
    // Anthropic refuses a temperature together with thinking. This SDK version no longer types the
    // field; the API still takes it for the models that support sampling controls.
    (params as MessageCreateParamsStreaming & { temperature?: number }).temperature = model.temperature;
  }
  return params;
}

/** `JSON.stringify(params)` as UTF-8, each block serialised once for the whole run (./wire-json.ts). */
export function anthropicBodyBytes(params: MessageCreateParamsStreaming): Buffer {
  return bodyBytes(params as unknown as Json, "messages", addMessage);
}

const OPEN_USER = Buffer.from('{"role":"user","content":[');
const OPEN_ASSISTANT = Buffer.from('{"role":"assistant","content":[');
const CLOSE = Buffer.from("]}");

/** A message as toAnthropicMessages makes them: a role and its blocks, nothing else. */
function addMessage(message: MessageParam, pieces: Buffer[]): void {
  const open =
    message.role === "user" ? OPEN_USER : message.role === "assistant" ? OPEN_ASSISTANT : undefined;
  if (!open || !Array.isArray(message.content)) {
    pieces.push(Buffer.from(JSON.stringify(message)));
    return;
  }
  pieces.push(open);
  addList(message.content, pieces, addItemBytes);
  pieces.push(CLOSE);
}

function toAnthropicMessages(request: StreamRequest): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of request.messages) {
    const blocks = perMessage(BLOCKS, message, () => blocksOf(message));
    if (blocks.length === 0) continue;
    const role = message.role === "assistant" ? "assistant" : "user";
    // The kept blocks go into arrays of this request's own: merging and marking change those.
    const last = out.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: [...blocks] });
  }
  return out;
}

/** Each message's blocks, made once (see ./wire-json.ts). */
const BLOCKS = new WeakMap<AgentMessage, ContentBlockParam[]>();

function blocksOf(message: AgentMessage): ContentBlockParam[] {
  if (message.role === "user") {
    return typeof message.content === "string" ? textBlocks(message.content) : parts(message.content);
  }
  if (message.role === "toolResult") {
    const content = parts(message.content);
    return [
      {
        type: "tool_result",
        tool_use_id: safeId(message.toolCallId),
        content: content.length > 0 ? (content as (TextBlockParam | ImageBlockParam)[]) : "(no output)",
        is_error: message.isError,
      },
    ];
  }
  if (message.stopReason === "error" || message.stopReason === "aborted") return [];
  const sameProvider = message.provider === "anthropic";
  const blocks: ContentBlockParam[] = [];
  for (const part of message.content) {
    if (part.type === "text") {
      if (part.text.trim()) blocks.push({ type: "text", text: part.text });
    } else if (part.type === "thinking") {
      if (sameProvider && part.redacted && part.signature) {
        blocks.push({ type: "redacted_thinking", data: part.signature });
      } else if (sameProvider && part.signature) {
        blocks.push({ type: "thinking", thinking: part.thinking, signature: part.signature });
      } else if (part.thinking.trim()) {
        // Thinking from another provider cannot be verified by Anthropic; keep it as plain text.
        blocks.push({ type: "text", text: `<thinking>\n${part.thinking}\n</thinking>` });
      }
    } else {
      blocks.push({ type: "tool_use", id: safeId(part.id), name: part.name, input: part.arguments });
    }
  }
  return blocks;
}

function textBlocks(text: string): ContentBlockParam[] {
  return text ? [{ type: "text", text }] : [];
}

function parts(content: (TextContent | ImageContent)[]): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text) blocks.push({ type: "text", text: part.text });
    } else {
      blocks.push({
        type: "image",
        source: { type: "base64", media_type: part.mimeType as "image/png", data: part.data },
      });
    }
  }
  return blocks;
}

/** Anthropic accepts tool ids matching [a-zA-Z0-9_-]+; ids minted elsewhere are rewritten the same way both times. */
function safeId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "call";
}

function markLatestTurns(messages: MessageParam[], count: number): void {
  let marked = 0;
  for (let i = messages.length - 1; i >= 0 && marked < count; i--) {
    const message = messages[i]!;
    if (message.role !== "user" || !Array.isArray(message.content)) continue;
    const last = message.content.at(-1);
    if (last && last.type !== "thinking" && last.type !== "redacted_thinking") {
      // A copy: the block itself is kept for later requests, where it is no longer among the last.
      message.content[message.content.length - 1] = { ...last, cache_control: CACHE } as ContentBlockParam;
      marked++;
    }
  }
}
