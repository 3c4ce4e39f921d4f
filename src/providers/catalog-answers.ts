/**
 * The text of src/providers/catalog-answers.json (see `BundledAnswers` in ./catalog-source.ts),
 * for scripts/gen-catalog-answers.ts and the test that keeps the file current.
 */
import { dayIndependentAnswers } from "./catalog-source.ts";
import { SDK_MODELS } from "./sdk-models.ts";

/** The JSON text: stable for a given catalog and SDKs (a test compares it byte for byte). */
export async function renderBundledAnswers(): Promise<string> {
  const answers = await dayIndependentAnswers({
    anthropic: SDK_MODELS.anthropic.models,
    openai: SDK_MODELS.openai.models,
  });
  return `${JSON.stringify(
    {
      $comment:
        "Generated from the bundled model catalog by scripts/gen-catalog-answers.ts (npm run catalog-answers); do not edit. A test fails while it is stale.",
      ...answers,
    },
    null,
    2,
  )}\n`;
}
