/**
 * Imports `@actions/workflow-parser` under plain Node: the package imports its JSON schemas
 * without `with { type: "json" }`, which Node refuses, so a load hook adds the attribute for them.
 */
import { registerHooks } from "node:module";

let registered = false;

export async function importWorkflowParser(): Promise<typeof import("@actions/workflow-parser")> {
  if (!registered) {
    registered = true;
    registerHooks({
      load(url, context, nextLoad) {
        if (url.includes("/@actions/workflow-parser/") && url.endsWith(".json")) {
          return nextLoad(url, {
            ...context,
            importAttributes: { ...context.importAttributes, type: "json" },
          });
        }
        return nextLoad(url, context);
      },
    });
  }
  return import("@actions/workflow-parser");
}

/** The action.yml parser of the same package. */
export async function importActionParser(): Promise<typeof import("@actions/workflow-parser/actions/index")> {
  await importWorkflowParser();
  return import("@actions/workflow-parser/actions/index");
}
