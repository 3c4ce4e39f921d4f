/**
 * Writes schema/task.schema.json from the zod schema of the task spec. Run it after changing
 * src/spec/schema.ts: `node scripts/gen-schema.ts`. A test fails while the file is stale.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderTaskJsonSchema } from "../src/spec/json-schema.ts";

const target = fileURLToPath(new URL("../schema/task.schema.json", import.meta.url));
await writeFile(target, renderTaskJsonSchema());
console.log(`wrote ${target}`);
