/**
 * An MCP `tools/call` result as the model sees it. Text parts stay text and images (png, jpeg,
 * gif, webp: what the providers take) stay images; an embedded text resource becomes its text, a
 * resource link, audio or a binary resource a line saying what it was. When the result has no
 * content but `structuredContent`, that is shown as JSON. The server's `isError` is kept.
 *
 * Bounded like the other tools' results: the text parts together keep their head within the
 * line and byte budget (2000 lines, 50 KiB by default), with a note of what was cut; an image over
 * 5 MiB (base64 decoded) is replaced by a line.
 */
import type { ImageContent, TextContent } from "../core/types.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead } from "../system/truncate.ts";

/** Largest image passed to the model, decoded: 5 MiB (Anthropic's limit per image). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** The part of a `CallToolResult` we read; everything else is ignored. */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpResultDetails {
  /** The server's name in the spec and the tool's own name there. */
  server: string;
  tool: string;
  /** Whether the text was cut to the budget. */
  truncated: boolean;
}

export interface MappedResult {
  content: (TextContent | ImageContent)[];
  isError: boolean;
  truncated: boolean;
}

/** Maps a result; never throws, whatever the server sent. */
export function mapCallResult(
  result: McpCallResult,
  options: { maxLines?: number; maxBytes?: number } = {},
): MappedResult {
  const parts: (TextContent | ImageContent)[] = [];
  for (const item of Array.isArray(result.content) ? result.content : []) parts.push(mapPart(item));
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push({ type: "text", text: safeJson(result.structuredContent) });
  }
  if (parts.length === 0) parts.push({ type: "text", text: "(the tool returned no content)" });
  const { content, truncated } = boundText(parts, options);
  return { content, isError: result.isError === true, truncated };
}

function mapPart(item: unknown): TextContent | ImageContent {
  const part = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
  switch (part.type) {
    case "text":
      return { type: "text", text: typeof part.text === "string" ? part.text : "" };
    case "image": {
      const mimeType = typeof part.mimeType === "string" ? part.mimeType : "";
      const data = typeof part.data === "string" ? part.data : "";
      const bytes = Math.floor((data.length * 3) / 4);
      if (!IMAGE_TYPES.has(mimeType)) return note(`an image of type ${mimeType || "unknown"}, not shown`);
      if (bytes > MAX_IMAGE_BYTES) {
        return note(
          `a ${mimeType} image of ${formatSize(bytes)}, larger than the ${formatSize(MAX_IMAGE_BYTES)} limit; not shown`,
        );
      }
      return { type: "image", data, mimeType };
    }
    case "audio":
      return note(`audio (${String(part.mimeType ?? "unknown type")}), not shown`);
    case "resource": {
      const resource = (
        typeof part.resource === "object" && part.resource !== null ? part.resource : {}
      ) as Record<string, unknown>;
      const uri = String(resource.uri ?? "");
      if (typeof resource.text === "string")
        return { type: "text", text: `Resource ${uri}:\n${resource.text}` };
      return note(`resource ${uri} (${String(resource.mimeType ?? "binary")}), not shown`);
    }
    case "resource_link":
      return note(`resource link ${String(part.uri ?? "")}${part.name ? ` (${String(part.name)})` : ""}`);
    default:
      return note(`content of type ${JSON.stringify(part.type ?? null)}, not shown`);
  }
}

function note(text: string): TextContent {
  return { type: "text", text: `[${text}]` };
}

/**
 * The text parts, in order, within one budget: each keeps what is left of it; a part past the
 * budget is dropped; one note at the end says how much was cut.
 */
function boundText(
  parts: (TextContent | ImageContent)[],
  options: { maxLines?: number; maxBytes?: number },
): { content: (TextContent | ImageContent)[]; truncated: boolean } {
  let lines = options.maxLines ?? DEFAULT_MAX_LINES;
  let bytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const total = parts.reduce(
    (sum, part) => sum + (part.type === "text" ? Buffer.byteLength(part.text) : 0),
    0,
  );
  let kept = 0;
  let truncated = false;
  const out: (TextContent | ImageContent)[] = [];
  for (const part of parts) {
    if (part.type !== "text") {
      out.push(part);
      continue;
    }
    if (lines <= 0 || bytes <= 0) {
      truncated = true;
      continue;
    }
    const cut = truncateHead(part.text, { maxLines: lines, maxBytes: bytes });
    out.push({ type: "text", text: cut.content });
    lines -= cut.outputLines;
    bytes -= cut.outputBytes;
    kept += cut.outputBytes;
    if (cut.truncated) truncated = true;
  }
  if (truncated) {
    out.push({
      type: "text",
      text: `[Result cut: ${formatSize(kept)} of ${formatSize(total)} of text shown (at most ${options.maxLines ?? DEFAULT_MAX_LINES} lines or ${formatSize(options.maxBytes ?? DEFAULT_MAX_BYTES)}).]`,
    });
  }
  return { content: out, truncated };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
