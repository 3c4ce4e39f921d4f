/**
 * Writes schema/task.schema.json from the zod schema of the task spec, and
 * schema/events.schema.json from the TypeScript union of the events. Run it after changing
 * src/spec/schema.ts or an event type: `npm run schema`. A test fails while either file is stale.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderTaskJsonSchema } from "../src/spec/json-schema.ts";
import { renderEventsJsonSchema } from "./event-schema.ts";

for (const [name, render] of [
  ["task.schema.json", renderTaskJsonSchema],
  ["events.schema.json", renderEventsJsonSchema],
] as const) {
  const target = fileURLToPath(new URL(`../schema/${name}`, import.meta.url));
  await writeFile(target, render());
  console.log(`wrote ${target}`);
}
