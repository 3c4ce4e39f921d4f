import { isMap, isScalar, isSeq, type Node } from "yaml";
import { z } from "zod";
import { readInputFile } from "../system/read-input-file.ts";
import { parseYaml } from "../system/yaml-input.ts";
import { ProviderConfigError } from "./errors.ts";

/**
 * The replay file's schemas, built on the first replay: zod builds them eagerly, which every run
 * would otherwise pay at start-up.
 */
function buildReplaySchemas() {
  const usageSchema = z.strictObject({
    input: z.number().int().nonnegative().default(0),
    output: z.number().int().nonnegative().default(0),
    cache_read: z.number().int().nonnegative().default(0),
    cache_write: z.number().int().nonnegative().default(0),
  });

  const toolCallSchema = z
    .strictObject({
      id: z.string().min(1).optional(),
      name: z.string().min(1),
      arguments: z.record(z.string(), z.unknown()).optional(),
      /** Raw argument text, sent as the model would; invalid JSON replays a malformed call. */
      arguments_raw: z.string().optional(),
    })
    .refine((call) => !(call.arguments && call.arguments_raw !== undefined), {
      message: "give either arguments or arguments_raw, not both",
    });

  const errorSchema = z.strictObject({
    kind: z
      .enum([
        "auth",
        "spend",
        "transient",
        "bad_request",
        "context_length",
        "timeout",
        "connection",
        "config",
        "unknown",
      ])
      .default("transient"),
    status: z.number().int().optional(),
    /** The provider's own error type or code ("overloaded_error", "context_length_exceeded"). */
    code: z.string().optional(),
    message: z.string(),
  });

  const turnSchema = z.strictObject({
    /** "provider:id" that produced this turn, when it differs from the file's model. */
    model: z.string().optional(),
    thinking: z.string().optional(),
    thinking_signature: z.string().optional(),
    text: z.string().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    usage: usageSchema.optional(),
    /** Total cost in USD; overrides pricing the usage. */
    cost: z.number().nonnegative().optional(),
    stop: z.enum(["stop", "length", "tool_use"]).optional(),
    /** The turn fails like a provider error (the run ends with exit code 4). */
    error: z.union([z.string(), errorSchema]).optional(),
  });

  const sessionSchema = z.strictObject({
    /** "provider:id" the session was recorded with; prices usage. Informative otherwise. */
    model: z.string().optional(),
    /** Written by the recorder: the calls are what a model sent, replayed unchecked. */
    recorded: z.boolean().optional(),
    turns: z.array(turnSchema),
  });
  return { session: sessionSchema, turn: turnSchema, toolCall: toolCallSchema };
}

type ReplaySchemas = ReturnType<typeof buildReplaySchemas>;
let schemas: ReplaySchemas | undefined;

export type ReplayTurn = z.infer<ReplaySchemas["turn"]>;
export type ReplayToolCall = z.infer<ReplaySchemas["toolCall"]>;

/** A scripted or recorded session: one entry per assistant turn, played in order. */
export interface ReplaySession {
  model?: string;
  /** The recorder wrote it: its calls are replayed as recorded, not checked against the tools. */
  recorded?: boolean;
  turns: ReplayTurn[];
  /** Where it came from, for error messages. */
  source?: string;
  /**
   * Where a value is in the file (`["turns", 0, "tool_calls", 1, "arguments", "path"]`), the
   * nearest node that exists; set by `parseReplay`, so later checks can point into the file.
   */
  positionOf?: (path: readonly PropertyKey[]) => { line: number; column: number };
}

/** One problem in a replay file, positioned. */
export interface ReplayProblem {
  line: number;
  column: number;
  /** `turns.0.tool_calls.1.arguments`, or "(root)". */
  path: string;
  message: string;
}

/** Problems listed in one error before "and N more". */
export const MAX_REPLAY_PROBLEMS = 50;

/**
 * Every problem at once: one `ProviderConfigError` (`bad_replay_file`) whose message has a line
 * `file:line:col: path: problem` per problem, the first also as its location.
 */
export function replayProblemsError(file: string, problems: ReplayProblem[]): ProviderConfigError {
  const sorted = [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
  const line = (p: ReplayProblem) => `${file}:${p.line}:${p.column}: ${p.path}: ${p.message}`;
  const first = sorted[0]!;
  const rest = sorted.slice(1, MAX_REPLAY_PROBLEMS).map(line);
  if (sorted.length > MAX_REPLAY_PROBLEMS)
    rest.push(`${file}: ${sorted.length - MAX_REPLAY_PROBLEMS} more problems not shown`);
  return new ProviderConfigError("bad_replay_file", `${first.path}: ${first.message}`, {
    location: { file, line: first.line, column: first.column },
    detail: [...rest, "see docs/replay.md for the format"].join("\n"),
  });
}

/**
 * Parses replay text (YAML or JSON). Throws `ProviderConfigError` (`bad_replay_file`) whose
 * message starts with `file:line:col` of the offending node.
 */
export function parseReplay(text: string, file = "<replay>"): ReplaySession {
  const { doc, lineCounter, problems, value } = parseYaml(text);
  const firstProblem = problems[0];
  if (firstProblem) {
    const pos = lineCounter.linePos(firstProblem.offset);
    const prefix = firstProblem.kind === "syntax" ? "invalid YAML: " : "";
    throw new ProviderConfigError("bad_replay_file", `${prefix}${firstProblem.message.split("\n")[0]}`, {
      location: { file, line: pos.line, column: pos.col },
    });
  }
  const positionOf = (path: readonly PropertyKey[], key?: string) => {
    let node = nodeAt(doc.contents, path);
    if (key !== undefined && isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && item.key.value === key);
      if (pair && isScalar(pair.key)) node = pair.key;
    }
    const pos = lineCounter.linePos(node?.range?.[0] ?? 0);
    return { line: pos.line, column: pos.col };
  };
  schemas ??= buildReplaySchemas();
  const parsed = schemas.session.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue): ReplayProblem[] => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(root)";
      // One problem per unknown key, at the key itself.
      if (issue.code === "unrecognized_keys") {
        return issue.keys.map((key) => ({
          ...positionOf(issue.path, key),
          path,
          message: `Unrecognized key: "${key}"`,
        }));
      }
      return [{ ...positionOf(issue.path), path, message: issue.message }];
    });
    throw replayProblemsError(file, problems);
  }
  return { ...parsed.data, source: file, positionOf: (path) => positionOf(path) };
}

/** Replay files larger than this are refused unread (a long recorded session is a few MB). */
export const MAX_REPLAY_BYTES = 64 * 1024 * 1024;

/**
 * Reads and parses a replay file; a missing file, or one that is not a regular text file of at
 * most `MAX_REPLAY_BYTES` (a FIFO, a device, a folder), is a `ProviderConfigError` too.
 */
export async function loadReplayFile(path: string): Promise<ReplaySession> {
  const read = await readInputFile(path, { maxBytes: MAX_REPLAY_BYTES });
  if (!read.ok) {
    // With a position, the message starts with the file's name already.
    const what = read.line === undefined ? `the replay file ${path}` : "the replay file";
    throw new ProviderConfigError("bad_replay_file", `${what} ${read.message}`, {
      ...(read.line !== undefined && { location: { file: path, line: read.line, column: read.column ?? 1 } }),
      cause: read.cause,
    });
  }
  return parseReplay(read.text, path);
}

function nodeAt(root: unknown, path: readonly PropertyKey[]): Node | undefined {
  let node = root as Node | undefined;
  let deepest = node;
  for (const key of path) {
    if (isMap(node)) node = node.get(key as string, true) as Node | undefined;
    else if (isSeq(node)) node = node.get(key as number, true) as Node | undefined;
    else break;
    if (!node) break;
    deepest = node;
  }
  return deepest;
}
