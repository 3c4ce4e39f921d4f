/**
 * Writes src/providers/sdk-models.json from the installed provider SDKs (scripts/sdk-models.ts).
 * Run it after upgrading `@anthropic-ai/sdk` or `openai`: `npm run sdk-models`. A test fails while
 * the file is stale.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderSdkModels } from "../src/providers/sdk-models.ts";
import { readSdkModels } from "./sdk-models.ts";

const target = fileURLToPath(new URL("../src/providers/sdk-models.json", import.meta.url));
await writeFile(target, renderSdkModels(await readSdkModels()));
console.log(`wrote ${target}`);
