/**
 * Early looks for secrets in the bash tool's saved outputs: each starts as its command ends, while
 * the model reads the result, so that the finish phase reads again only a file that changed since
 * (src/output/redact-files.ts, lookForSecrets). A 23 MB output cost ~180 ms of the end here.
 */
import path from "node:path";
import { type CleanAsOf, lookForSecrets, type Redactor } from "../output/index.ts";

export interface SavedOutputLooks {
  /** Starts the look at `file` once; a path outside the run's tool-output folder is ignored. */
  start(file: string): void;
  /** The looks by path, for redactFilesIn. */
  readonly found: ReadonlyMap<string, Promise<CleanAsOf | undefined>>;
  /** Stops the looks still reading (the finish phase lets go of the files). */
  stop(): void;
}

export function createSavedOutputLooks(
  dir: string,
  redactor: Pick<Redactor, "redact" | "version">,
): SavedOutputLooks {
  const found = new Map<string, Promise<CleanAsOf | undefined>>();
  const stopper = new AbortController();
  return {
    start(file) {
      // The path comes back in the tool's result, which an after_tool_call hook may rewrite.
      if (stopper.signal.aborted || found.has(file) || path.dirname(file) !== dir) return;
      found.set(file, lookForSecrets(file, redactor, stopper.signal));
    },
    found,
    stop: () => stopper.abort(),
  };
}
