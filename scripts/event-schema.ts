/**
 * The JSON Schema of one line of events.jsonl (also what `--json` prints and `onEvent` gets),
 * generated from the TypeScript union `CompactRunEvent` with ts-json-schema-generator, so the
 * schema and the events cannot disagree. `npm run schema` writes it to schema/events.schema.json;
 * a test fails while that file is stale. Slow (it type-checks the sources: seconds), so it is a
 * dev script, not part of the package.
 */
import { fileURLToPath } from "node:url";
import { createGenerator } from "ts-json-schema-generator";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export function eventsJsonSchema(): Record<string, unknown> {
  const schema = createGenerator({
    path: `${ROOT}src/run/compact-event.ts`,
    tsconfig: `${ROOT}tsconfig.json`,
    type: "CompactRunEvent",
    // tsc --noEmit checks the types; the generator only reads them.
    skipTypeCheck: true,
    expose: "export",
    topRef: true,
    jsDoc: "basic",
    additionalProperties: false,
  }).createSchema("CompactRunEvent") as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return {
    $schema,
    title: "agent-run event",
    description:
      "One line of events.jsonl: an event of the run, as --json prints it and runTask's onEvent receives it (docs/outputs.md).",
    ...rest,
  };
}

/** The schema file's exact text: two-space JSON and a final newline. */
export function renderEventsJsonSchema(): string {
  return `${JSON.stringify(eventsJsonSchema(), null, 2)}\n`;
}
