/**
 * Writes the inputs and outputs tables of docs/action.md from action.yml, between the markers
 * `<!-- action-inputs:start -->` / `<!-- action-inputs:end -->` (and the same for outputs).
 * `--check` writes nothing and exits 1 when the doc is out of date (for CI).
 *
 * Usage: node scripts/gen-action-docs.ts [--check]
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";

interface ActionYml {
  inputs?: Record<string, { description?: string; required?: boolean; default?: string }>;
  outputs?: Record<string, { description?: string }>;
}

const cell = (text: string): string => text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|").trim();

/** A Markdown table with padded columns, as Biome formats Markdown (so `biome format` keeps it). */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** The two tables for an action.yml's text. */
export function renderActionTables(actionYml: string): { inputs: string; outputs: string } {
  const action = parse(actionYml) as ActionYml;
  const inputs = markdownTable(
    ["Input", "Description", "Default"],
    Object.entries(action.inputs ?? {}).map(([name, input]) => [
      `\`${name}\``,
      `${cell(input.description ?? "")}${input.required ? " **Required.**" : ""}`,
      input.default === undefined ? "" : `\`${cell(String(input.default))}\``,
    ]),
  );
  const outputs = markdownTable(
    ["Output", "Description"],
    Object.entries(action.outputs ?? {}).map(([name, output]) => [
      `\`${name}\``,
      cell(output.description ?? ""),
    ]),
  );
  return { inputs, outputs };
}

/** `doc` with the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` replaced. Throws when a marker is missing. */
export function replaceBetween(doc: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/action.md: markers ${start} … ${end} not found`);
  return `${doc.slice(0, from + start.length)}\n${content}\n${doc.slice(to)}`;
}

/** The generated doc for the current action.yml. */
export async function generateActionDocs(
  root: string,
): Promise<{ file: string; current: string; next: string }> {
  const file = path.join(root, "docs/action.md");
  const current = await readFile(file, "utf8");
  const tables = renderActionTables(await readFile(path.join(root, "action.yml"), "utf8"));
  const next = replaceBetween(
    replaceBetween(current, "action-inputs", tables.inputs),
    "action-outputs",
    tables.outputs,
  );
  return { file, current, next };
}

if (import.meta.main) {
  const root = path.join(import.meta.dirname, "..");
  const { file, current, next } = await generateActionDocs(root);
  if (process.argv.includes("--check")) {
    if (current !== next) {
      console.error("docs/action.md is out of date with action.yml: run `node scripts/gen-action-docs.ts`");
      process.exitCode = 1;
    }
  } else if (current !== next) {
    await writeFile(file, next);
    console.log("docs/action.md: tables updated");
  }
}
