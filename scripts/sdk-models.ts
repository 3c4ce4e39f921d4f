/**
 * Reads, from the provider SDKs installed in node_modules, the model ids each SDK lists and the
 * ones it marks deprecated, for src/providers/sdk-models.json (scripts/gen-sdk-models.ts writes
 * it; a test fails while it differs from what this returns, so an SDK upgrade cannot leave it
 * stale). The SDKs do not export these lists: `@anthropic-ai/sdk` keeps them in internal modules
 * (`internal/data/*.mjs`, outside its package exports) and `openai` only in the doc comment of its
 * `ChatModel` type. Throws when a list is not where it was, rather than writing an empty one.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { SdkModelList, SdkModels } from "../src/providers/sdk-models.ts";

const require = createRequire(import.meta.url);

export async function readSdkModels(): Promise<SdkModels> {
  return { anthropic: await readAnthropic(), openai: await readOpenAI() };
}

/** The package's folder: above its main entry (its exports map hides package.json). */
function packageDir(name: string): string {
  const main = require.resolve(name);
  const marker = `${path.sep}node_modules${path.sep}${name.split("/").join(path.sep)}${path.sep}`;
  const at = main.lastIndexOf(marker);
  if (at < 0) throw new Error(`${name}: cannot find its folder from ${main}`);
  return main.slice(0, at + marker.length - 1);
}

async function version(dir: string): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
  return `${pkg.name}@${pkg.version}`;
}

async function readAnthropic(): Promise<SdkModelList> {
  const dir = packageDir("@anthropic-ai/sdk");
  const types = await readFile(path.join(dir, "resources/messages/messages.d.mts"), "utf8");
  const models = quotedIds(section(types, /export type Model = ([^;]+);/, "Model type"));
  const data = async (file: string) =>
    (await import(pathToFileURL(path.join(dir, "internal/data", file)).href)) as Record<string, unknown>;
  const deprecatedTable = (await data("deprecated-models.mjs")).DEPRECATED_MODELS;
  const adaptive = (await data("models-to-warn-with-thinking-enabled.mjs"))
    .MODELS_TO_WARN_WITH_THINKING_ENABLED;
  if (!isStringRecord(deprecatedTable)) throw new Error("@anthropic-ai/sdk: DEPRECATED_MODELS not found");
  if (!Array.isArray(adaptive))
    throw new Error("@anthropic-ai/sdk: MODELS_TO_WARN_WITH_THINKING_ENABLED not found");
  const deprecated: SdkModelList["deprecated"] = {};
  for (const [id, when] of Object.entries(deprecatedTable)) deprecated[id] = { date: isoDate(when) };
  return {
    sdk: await version(dir),
    models,
    deprecated: sortKeys(deprecated),
    adaptiveThinking: (adaptive as string[]).toSorted(),
  };
}

async function readOpenAI(): Promise<SdkModelList> {
  const dir = packageDir("openai");
  const types = await readFile(path.join(dir, "resources/shared.d.mts"), "utf8");
  const chat = quotedIds(section(types, /export type ChatModel = ([^;]+);/, "ChatModel type"));
  const responses = quotedIds(section(types, /export type ResponsesModel = ([^;]+);/, "ResponsesModel type"));
  const models = [...new Set([...chat, ...responses])];
  const comment = section(
    types,
    /\/\*\*\s*\n \* Deprecated values:([\s\S]*?)\*\/\s*\nexport type ChatModel/,
    "deprecation comment",
  );
  const deprecated: SdkModelList["deprecated"] = {};
  // Each item: `- "id", "id": Announced shutdown date: YYYY-MM-DD. …` or `- "id": Not a supported model ID. …`
  for (const item of comment
    .replace(/\n \*\s*/g, " ")
    .split(/\s- (?=")/)
    .slice(1)) {
    const ids = [...item.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
    const date = /shutdown\s+date:\s*(\d{4}-\d{2}-\d{2})/i.exec(item)?.[1];
    const note = date ? undefined : /:\s*([^.]+\.)/.exec(item.slice(item.lastIndexOf('"')))?.[1]?.trim();
    if (!date && !note) throw new Error(`openai: cannot read the deprecation item ${item.slice(0, 80)}`);
    for (const id of ids) deprecated[id] = date ? { date } : { note: note as string };
  }
  if (Object.keys(deprecated).length === 0) throw new Error("openai: no deprecated model ids found");
  return { sdk: await version(dir), models, deprecated: sortKeys(deprecated) };
}

function section(text: string, pattern: RegExp, what: string): string {
  const match = pattern.exec(text);
  if (!match?.[1]) throw new Error(`${what} not found`);
  return match[1];
}

function quotedIds(union: string): string[] {
  const ids = [...union.matchAll(/'([^']+)'/g)].map((m) => m[1] as string);
  if (ids.length === 0) throw new Error("no model ids in the union");
  return ids;
}

const MONTHS = "january february march april may june july august september october november december".split(
  " ",
);

/** "November 30th, 2026" → "2026-11-30". */
function isoDate(text: string): string {
  const match = /^([A-Za-z]+)\s+(\d{1,2})(?:st|nd|rd|th)?,\s*(\d{4})$/.exec(text.trim());
  const month = match ? MONTHS.indexOf(match[1]!.toLowerCase()) + 1 : 0;
  if (!match || month === 0) throw new Error(`@anthropic-ai/sdk: cannot read the date "${text}"`);
  return `${match[3]}-${String(month).padStart(2, "0")}-${match[2]!.padStart(2, "0")}`;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" && value !== null && Object.values(value).every((v) => typeof v === "string")
  );
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).toSorted(([a], [b]) => a.localeCompare(b)));
}
