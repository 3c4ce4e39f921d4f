/**
 * Writes src/providers/catalog-answers.json: the model catalog's answers that are the same on every
 * day, for the ids the provider SDKs list and the catalog's own (see `dayIndependentAnswers`). Run
 * it after upgrading `@pydantic/genai-prices` or the SDKs: `npm run catalog-answers`. A test fails
 * while the file is stale.
 */
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { renderBundledAnswers } from "../src/providers/catalog-answers.ts";

const target = fileURLToPath(new URL("../src/providers/catalog-answers.json", import.meta.url));
await writeFile(target, await renderBundledAnswers());
console.log(`wrote ${target}`);
