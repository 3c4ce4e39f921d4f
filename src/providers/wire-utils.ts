/** Small readers for loosely typed wire JSON: servers that only claim compatibility vary a lot. */

export type Json = { [key: string]: unknown };

export function obj(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Tool call arguments as the wire wants them: a JSON string. */
export function argumentsJson(args: Record<string, unknown>): string {
  return JSON.stringify(args ?? {});
}

/** Text of tool result parts; images are counted, not inlined (for APIs without image results). */
export function textOf(content: { type: string; text?: string }[]): string {
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text ?? "")
    .join("\n");
}
