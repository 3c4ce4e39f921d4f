/**
 * The size of a request before it is sent, in characters and then in tokens, calibrated on the
 * provider's own counts (the input tokens it reported for a request: fresh, cached and
 * cache-written): the last reported input plus what was added since (see `TokenRatio`). Until the
 * first answer, characters times `DEFAULT_TOKENS_PER_CHAR`, which overestimates prose and code
 * alike (the safe side for a window).
 */
import type { AgentMessage, AnyAgentTool } from "../../core/types.ts";
import { toolParametersJsonSchema } from "../../core/validate.ts";

/** Tokens per character before any answer calibrates it: 1/3, above the ~1/4 of prose. */
export const DEFAULT_TOKENS_PER_CHAR = 1 / 3;
/** The calibrated ratio is kept within these bounds: a server reporting nonsense cannot make the estimate absurd. */
const MIN_TOKENS_PER_CHAR = 1 / 8;
const MAX_TOKENS_PER_CHAR = 1;
/** Characters an image counts for (about 1,600 tokens at 1/4). */
export const IMAGE_CHARS = 6400;
/** What every message costs beyond its content (role, ids, wire framing), in characters. */
const MESSAGE_OVERHEAD_CHARS = 16;

/**
 * Characters counted per message: the context is measured before every turn, and a message in
 * it does not change once it is there, so each is measured once (not once per turn: a tool call's
 * arguments are serialised to be counted).
 */
const measured = new WeakMap<AgentMessage, number>();

/** Characters of one message as the model reads it: text, thinking, tool calls, images. */
export function messageChars(message: AgentMessage): number {
  const content = message.content;
  if (typeof content === "string") return MESSAGE_OVERHEAD_CHARS + content.length;
  const known = measured.get(message);
  if (known !== undefined) return known;
  const chars = partsChars(content);
  measured.set(message, chars);
  return chars;
}

function partsChars(content: Exclude<AgentMessage["content"], string>): number {
  let chars = MESSAGE_OVERHEAD_CHARS;
  for (const part of content) {
    if (part.type === "text") chars += part.text.length;
    else if (part.type === "image") chars += IMAGE_CHARS;
    else if (part.type === "thinking") chars += part.thinking.length;
    else chars += part.name.length + jsonLength(part.arguments) + MESSAGE_OVERHEAD_CHARS;
  }
  return chars;
}

export function messagesChars(messages: readonly AgentMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += messageChars(message);
  return chars;
}

const toolsCache = new WeakMap<AnyAgentTool[], number>();

/** Characters of the system prompt and the tool definitions (cached per tools array). */
export function fixedChars(systemPrompt: string, tools: AnyAgentTool[]): number {
  let toolChars = toolsCache.get(tools);
  if (toolChars === undefined) {
    toolChars = 0;
    for (const tool of tools) {
      toolChars += tool.name.length + tool.description.length + jsonLength(toolParametersJsonSchema(tool));
    }
    toolsCache.set(tools, toolChars);
  }
  return systemPrompt.length + toolChars;
}

/**
 * Tokens from characters, learnt from the provider's counts: the estimate of a request is the
 * last counted request's tokens plus what was added (or taken out) since, at the density of what
 * changed between the last two counted requests (the system prompt and the tool definitions, often
 * denser, cancel out). Before any count: characters times `DEFAULT_TOKENS_PER_CHAR`.
 */
export class TokenRatio {
  #ratio = DEFAULT_TOKENS_PER_CHAR;
  #base: { chars: number; tokens: number } | undefined;

  /** Tokens per character of what changes between requests. */
  get value(): number {
    return this.#ratio;
  }

  /** A request of `chars` characters was counted as `tokens` input tokens. */
  observe(chars: number, tokens: number): void {
    if (!(chars > 0) || !(tokens > 0)) return;
    const base = this.#base;
    if (!base) this.#ratio = clamp(tokens / chars);
    else {
      const changed = chars - base.chars;
      const counted = tokens - base.tokens;
      // A small change says little about the density (a stub, a short reply): keep the last one.
      if (Math.abs(changed) >= MIN_SAMPLE_CHARS && Math.sign(changed) === Math.sign(counted)) {
        this.#ratio = clamp(counted / changed);
      }
    }
    this.#base = { chars, tokens };
  }

  tokens(chars: number): number {
    const base = this.#base;
    if (!base) return Math.ceil(chars * this.#ratio);
    return Math.max(0, Math.ceil(base.tokens + (chars - base.chars) * this.#ratio));
  }

  chars(tokens: number): number {
    const base = this.#base;
    if (!base) return Math.floor(tokens / this.#ratio);
    return Math.max(0, Math.floor(base.chars + (tokens - base.tokens) / this.#ratio));
  }
}

/** Characters a change between two counted requests must span to calibrate the density. */
const MIN_SAMPLE_CHARS = 2000;

function clamp(ratio: number): number {
  return Math.min(MAX_TOKENS_PER_CHAR, Math.max(MIN_TOKENS_PER_CHAR, ratio));
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return 0;
  }
}
