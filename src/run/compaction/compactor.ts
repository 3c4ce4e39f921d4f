/**
 * The runner's context compaction, an implementation of the core's `transformContext`. Before
 * each request it estimates the request's size (estimate.ts); past `threshold` of the model's
 * window, or when the provider refused the request as too long, it compacts down to `target`:
 * first the older tool results become one-line stubs (oldest first), then, if that is not enough,
 * the older turns are folded into a summary the model writes in a request of its own. The request
 * sent is then: the system prompt, the task prompt, the summary, the turns kept, and always the
 * latest assistant message with all its tool results, verbatim and last. Only when those alone do
 * not fit the window are the latest results cut (start and end kept).
 *
 * The transcript itself is never changed: the compactor keeps what it folded and pruned, and
 * `view()` applies that to any later transcript without a new request (a resume restores it).
 */
import type { StreamFunction } from "../../core/provider.ts";
import type {
  AgentMessage,
  Model,
  ToolResultMessage,
  TransformContextHook,
  UserMessage,
} from "../../core/types.ts";
import { DEFAULT_COMPACTION } from "../../spec/types.ts";
import { fixedChars, messagesChars, TokenRatio } from "./estimate.ts";
import { callsById, contentChars, cutResult, PRUNE_MIN_CHARS, prunedResult } from "./prune.ts";
import {
  mechanicalSummary,
  requestSummary,
  SUMMARY_MARKER,
  SUMMARY_MAX_OUTPUT_TOKENS,
  summaryPrompt,
} from "./summary-request.ts";

/** Default `compaction.threshold`: compact when a request reaches 85 % of the window. */
export const DEFAULT_COMPACTION_THRESHOLD = DEFAULT_COMPACTION.threshold;
/** Default `compaction.target`: a compaction brings the request down to 40 % of the window. */
export const DEFAULT_COMPACTION_TARGET = DEFAULT_COMPACTION.target;

/** One compaction, as written to events.jsonl. Token counts are the runner's estimates. */
export interface CompactionEvent {
  type: "compaction";
  /** "threshold": the estimate passed `threshold`; "overflow": the provider refused the request. */
  reason: "threshold" | "overflow";
  /**
   * The window compacted to, in tokens. `learned` when the provider refused a request the model's
   * window (unknown, or larger in the catalog than on the server) should have held: halfway between
   * the last prompt that fitted and the one refused.
   */
  contextWindow: number;
  windowSource: "model" | "learned";
  tokensBefore: number;
  tokensAfter: number;
  /** Tool results replaced by stubs, and the characters that took out. */
  resultsPruned: number;
  charsPruned: number;
  /** Assistant turns folded into the summary by this compaction. */
  turnsFolded: number;
  /** Whether a summary request was made, and why its summary is a mechanical one if it failed. */
  summarized: boolean;
  summaryError?: string;
  /** The latest results were cut: even alone they did not fit the window. */
  latestCut: boolean;
  durationMs: number;
}

export interface CompactorOptions {
  /** Streams the summary requests (the run's stream: redacted, recorded). */
  stream: StreamFunction;
  /** The model's context window in tokens (the spec's `context_window` or the catalog's), if known. */
  contextWindow: (model: Model) => number | undefined;
  threshold?: number;
  target?: number;
  emit?: (event: CompactionEvent) => void;
  now?: () => number;
}

export interface Compactor {
  transformContext: TransformContextHook;
  /** The transcript as it would be sent now, by what was folded and pruned so far; never a request. */
  view(messages: AgentMessage[]): AgentMessage[];
  /** Compactions so far. */
  readonly count: number;
}

/** The folded part of the transcript: everything from message 1 up to `firstKept`. */
interface Fold {
  firstKept: AgentMessage;
  summary: UserMessage;
  /** The model's summary text, handed to the next summary request. */
  text: string;
  turns: number;
}

export function createCompactor(options: CompactorOptions): Compactor {
  const threshold = options.threshold ?? DEFAULT_COMPACTION_THRESHOLD;
  const target = Math.min(options.target ?? DEFAULT_COMPACTION_TARGET, threshold);
  const now = options.now ?? Date.now;
  const ratio = new TokenRatio();
  const replaced = new WeakMap<ToolResultMessage, ToolResultMessage>();
  const changedFiles = new Set<string>();
  let fold: Fold | undefined;
  let learnedWindow: number | undefined;
  let lastSent: { chars: number; length: number } | undefined;
  let lastInputTokens: number | undefined;
  let count = 0;

  /** The index of the first kept message, or 0 without a fold (resetting a fold the transcript lost). */
  const keptFrom = (messages: AgentMessage[]): number => {
    if (!fold) return 0;
    const index = messages.lastIndexOf(fold.firstKept);
    if (index <= 0) fold = undefined;
    return Math.max(0, index);
  };

  const view = (messages: AgentMessage[]): AgentMessage[] => {
    const from = keptFrom(messages);
    const kept =
      from > 0 && fold ? [messages[0] as AgentMessage, fold.summary, ...messages.slice(from)] : messages;
    return kept.map((m) => (m.role === "toolResult" ? (replaced.get(m) ?? m) : m));
  };

  /** Learns the tokens-per-character ratio from the answer to the previous request. */
  const calibrate = (messages: AgentMessage[]) => {
    if (!lastSent || messages.length <= lastSent.length) return;
    const answer = messages[lastSent.length];
    if (answer?.role !== "assistant" || answer.usageMissing) return;
    if (answer.stopReason === "error" || answer.stopReason === "aborted") return;
    const tokens = answer.usage.input + answer.usage.cacheRead + answer.usage.cacheWrite;
    if (tokens > 0) {
      ratio.observe(lastSent.chars, tokens);
      lastInputTokens = tokens;
    }
  };

  const transformContext: TransformContextHook = async (messages, signal, info) => {
    calibrate(messages);
    const fixed = fixedChars(info.systemPrompt, info.tools);
    let sent = view(messages);
    let chars = fixed + messagesChars(sent);
    const known = options.contextWindow(info.model);
    let reason: CompactionEvent["reason"] = "threshold";
    if (info.overflow) {
      // Refused: the window, whatever the catalog says, lies between the last prompt that fitted
      // (counted by the provider) and the one refused (estimated). Halfway is taken from now on.
      reason = "overflow";
      const refused = ratio.tokens(lastSent?.chars ?? chars);
      const fitted = lastInputTokens !== undefined && lastInputTokens < refused ? lastInputTokens : undefined;
      const between = fitted === undefined ? Math.floor(refused * 0.8) : Math.floor((fitted + refused) / 2);
      learnedWindow = Math.min(learnedWindow ?? between, between);
    }
    const learned = learnedWindow !== undefined && (known === undefined || learnedWindow < known);
    const window = learned ? learnedWindow : known;
    // The model's window holds the reply too (a learnt window is a prompt size: nothing to take off).
    const reserve = learned ? 0 : (info.model.maxOutputTokens ?? 0);
    const budget = window === undefined ? undefined : window - reserve;
    if (
      budget === undefined ||
      !(budget > 0) ||
      (!info.overflow && ratio.tokens(chars) <= threshold * budget)
    ) {
      lastSent = { chars, length: messages.length };
      return sent;
    }
    const started = now();
    const before = ratio.tokens(chars);
    let goalChars = ratio.chars(target * budget);
    // Refused: whatever the estimate says, the request must shrink well below the one refused.
    if (info.overflow) goalChars = Math.min(goalChars, Math.floor((lastSent?.chars ?? chars) * target));
    const calls = callsById(messages);
    const protectedFrom = lastAssistantIndex(messages);

    // 1. Older tool results become stubs, oldest first, until the request is at the target.
    let resultsPruned = 0;
    let charsPruned = 0;
    for (let i = Math.max(1, keptFrom(messages)); i < protectedFrom && chars > goalChars; i++) {
      const message = messages[i];
      if (message?.role !== "toolResult" || replaced.has(message) || contentChars(message) < PRUNE_MIN_CHARS)
        continue;
      const stub = prunedResult(message, calls.get(message.toolCallId));
      const saved = contentChars(message) - contentChars(stub);
      replaced.set(message, stub);
      chars -= saved;
      charsPruned += saved;
      resultsPruned++;
    }

    // 2. Still too big: the older turns are folded into a summary the model writes.
    let turnsFolded = 0;
    let summarized = false;
    let summaryError: string | undefined;
    if (chars > goalChars) {
      const planned = planFold(messages, view, keptFrom(messages), protectedFrom, {
        // The kept turns get what the task, the summary and the fixed part leave of the target.
        keepChars:
          goalChars -
          fixed -
          messagesChars([messages[0] as AgentMessage]) -
          ratio.chars(SUMMARY_MAX_OUTPUT_TOKENS),
      });
      if (planned) {
        const task = messages[0] as AgentMessage;
        const prompt = summaryPrompt({
          taskPrompt: typeof task.content === "string" ? task.content : messageText(task),
          previousSummary: planned.previousSummary,
          folded: planned.folded,
          maxChars: ratio.chars(budget * 0.6),
        });
        summarized = true;
        const outcome = await requestSummary(options.stream, info.model, prompt, signal);
        info.addUsage(outcome.usage);
        if (signal.aborted) return sent;
        if (!outcome.ok) summaryError = outcome.error;
        const text = outcome.ok ? outcome.text : mechanicalSummary(planned.folded, outcome.error);
        for (const path of writtenPaths(planned.folded)) changedFiles.add(path);
        turnsFolded = planned.folded.filter((m) => m.role === "assistant").length;
        const turns = (fold?.turns ?? 0) + turnsFolded;
        fold = {
          firstKept: messages[planned.keepFrom] as AgentMessage,
          text,
          turns,
          summary: summaryMessage(text, turns, [...changedFiles]),
        };
      }
    }

    // 3. Even the latest turn alone too big: its results are cut to share what is left.
    sent = view(messages);
    chars = fixed + messagesChars(sent);
    let latestCut = false;
    const hardChars = ratio.chars(budget * 0.95);
    if (chars > hardChars) latestCut = cutLatest(messages.slice(protectedFrom), chars - hardChars, replaced);
    if (latestCut) {
      sent = view(messages);
      chars = fixed + messagesChars(sent);
    }
    count++;
    options.emit?.({
      type: "compaction",
      reason,
      contextWindow: window as number,
      windowSource: learned ? "learned" : "model",
      tokensBefore: before,
      tokensAfter: ratio.tokens(chars),
      resultsPruned,
      charsPruned,
      turnsFolded,
      summarized,
      ...(summaryError !== undefined && { summaryError }),
      latestCut,
      durationMs: now() - started,
    });
    lastSent = { chars, length: messages.length };
    return sent;
  };

  return {
    transformContext,
    view,
    get count() {
      return count;
    },
  };
}

/** Where a fold starts and ends: from message 1 (or the previous fold) to an assistant message, keeping the tail within `keepChars`. */
function planFold(
  messages: AgentMessage[],
  view: (messages: AgentMessage[]) => AgentMessage[],
  keptFrom: number,
  protectedFrom: number,
  budget: { keepChars: number },
): { folded: AgentMessage[]; keepFrom: number; previousSummary: string | undefined } | undefined {
  if (protectedFrom >= messages.length) return undefined;
  let start = keptFrom > 0 ? keptFrom : 1;
  let previousSummary: string | undefined;
  if (keptFrom === 0 && isSummaryMessage(messages[1])) {
    // A resumed transcript starts with the summary of the run before: it folds like any summary.
    previousSummary = messageText(messages[1] as AgentMessage);
    start = 2;
  }
  let keepFrom = protectedFrom;
  for (let i = protectedFrom - 1; i > start; i--) {
    if (messages[i]?.role !== "assistant") continue;
    if (messagesChars(view(messages.slice(i))) > budget.keepChars) break;
    keepFrom = i;
  }
  if (keepFrom <= start) return undefined;
  return { folded: messages.slice(start, keepFrom), keepFrom, previousSummary };
}

/** Cuts the latest results, largest first, until `excess` characters are gone. */
function cutLatest(
  tail: AgentMessage[],
  excess: number,
  replaced: WeakMap<ToolResultMessage, ToolResultMessage>,
): boolean {
  const results = tail.filter((m): m is ToolResultMessage => m.role === "toolResult");
  const total = results.reduce((sum, r) => sum + contentChars(replaced.get(r) ?? r), 0);
  if (total === 0) return false;
  const keep = Math.max(0, total - excess);
  for (const result of results) {
    const current = replaced.get(result) ?? result;
    replaced.set(result, cutResult(current, Math.floor((contentChars(current) / total) * keep)));
  }
  return true;
}

function lastAssistantIndex(messages: AgentMessage[]): number {
  for (let i = messages.length - 1; i > 0; i--) if (messages[i]?.role === "assistant") return i;
  return messages.length;
}

function summaryMessage(text: string, turns: number, files: string[]): UserMessage {
  const changed = files.length > 0 ? files.join(", ") : "none";
  return {
    role: "user",
    content: `${SUMMARY_MARKER}\nTo fit the model's context window, the first ${turns} turns of this conversation were replaced by the summary below, written by the model. Files changed in those turns by write and edit calls: ${changed}.\n\n${text}`,
    timestamp: Date.now(),
  };
}

/** Whether `message` is a compaction summary (as a resumed transcript holds one). */
export function isSummaryMessage(message: AgentMessage | undefined): boolean {
  return message?.role === "user" && messageText(message).startsWith(SUMMARY_MARKER);
}

function messageText(message: AgentMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Paths named by write and edit calls of `messages`. */
function writtenPaths(messages: AgentMessage[]): string[] {
  const paths: string[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      const path = part.type === "toolCall" ? part.arguments.path : undefined;
      if (
        part.type === "toolCall" &&
        (part.name === "write" || part.name === "edit") &&
        typeof path === "string"
      )
        paths.push(path);
    }
  }
  return paths;
}
