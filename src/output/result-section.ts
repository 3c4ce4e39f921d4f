/**
 * The summary's section for a structured result (`output_schema`): a table of fields when the
 * result is an object of plain values (string, number, boolean, null), else the JSON in a collapsed
 * block, cut to fit with a pointer to result.json. Text from the model goes through ./markdown.ts.
 */
import { escapeInline, fencedBlock } from "./markdown.ts";

/** Characters of the result's JSON shown in the summary: 20,000 (the rest is in result.json). */
export const MAX_RESULT_JSON_CHARS = 20_000;
/** Fields of a flat result shown as table rows: 50. */
const MAX_TABLE_FIELDS = 50;
/** Characters of one table cell: 500. */
const MAX_CELL_CHARS = 500;

/** The section, "" when there is no result. */
export function resultSection(result: unknown): string {
  if (result === undefined) return "";
  if (isFlatObject(result)) {
    const entries = Object.entries(result);
    const rows = entries
      .slice(0, MAX_TABLE_FIELDS)
      .map(([key, value]) => `| ${cell(key)} | ${cell(value === null ? "null" : String(value))} |`);
    if (entries.length > MAX_TABLE_FIELDS)
      rows.push(`| … | ${entries.length - MAX_TABLE_FIELDS} more fields in \`result.json\` |`);
    return ["#### Result", "", "| Field | Value |", "| --- | --- |", ...rows].join("\n");
  }
  const json = JSON.stringify(result, null, 2) ?? "null";
  const shown = json.length > MAX_RESULT_JSON_CHARS ? `${json.slice(0, MAX_RESULT_JSON_CHARS)}\n…` : json;
  const note =
    json.length > MAX_RESULT_JSON_CHARS ? "\n\n*Cut here; the whole result is in `result.json`.*" : "";
  return `#### Result\n\n<details><summary>result.json</summary>\n\n${fencedBlock(shown, "json")}${note}\n</details>`;
}

function isFlatObject(value: unknown): value is Record<string, string | number | boolean | null> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const values = Object.values(value);
  return (
    values.length > 0 && values.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v))
  );
}

function cell(text: string): string {
  return escapeInline(text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS - 1)}…` : text);
}
