/**
 * Early looks for secrets in the bash tool's saved outputs: each starts as its command ends, while
 * the model reads the result, so that the finish phase reads again only a file that changed since
 * (src/output/redact-files.ts, lookForSecrets). A 23 MB output cost ~180 ms of the end here. A big
 * output is looked through in a worker thread (src/output/secret-look.ts), which `growing` starts
 * while its command still runs.
 */
import { lstatSync } from "node:fs";
import path from "node:path";
import {
  type CleanAsOf,
  createSecretLookWorker,
  lookForSecrets,
  type Redactor,
  WORKER_LOOK_MIN_BYTES,
  WORKER_WARM_BYTES,
} from "../output/index.ts";

export interface SavedOutputLooks {
  /** Starts the look at `file` once; a path outside the run's tool-output folder is ignored. */
  start(file: string): void;
  /** A running command's output holds `bytes` now: past WORKER_WARM_BYTES the worker starts. */
  growing(bytes: number): void;
  /** The looks by path, for redactFilesIn. */
  readonly found: ReadonlyMap<string, Promise<CleanAsOf | undefined>>;
  /**
   * Stops the looks still reading and lets the worker end; resolves once they have closed their
   * files (a full disk's outputs wait for that before the files are removed). Never rejects.
   */
  stop(): Promise<void>;
}

export function createSavedOutputLooks(
  dir: string,
  redactor: Pick<Redactor, "redact" | "redactLatin1" | "version" | "pieceCuts">,
): SavedOutputLooks {
  const found = new Map<string, Promise<CleanAsOf | undefined>>();
  const stopper = new AbortController();
  const worker = createSecretLookWorker(redactor);
  return {
    start(file) {
      // The path comes back in the tool's result, which an after_tool_call hook may rewrite.
      if (stopper.signal.aborted || found.has(file) || path.dirname(file) !== dir) return;
      const size = sizeOf(file);
      const inWorker =
        size >= WORKER_LOOK_MIN_BYTES || (worker.warmed && size >= WORKER_WARM_BYTES)
          ? worker.look(file)
          : undefined;
      found.set(file, inWorker ?? lookForSecrets(file, redactor, stopper.signal));
    },
    growing(bytes) {
      if (bytes >= WORKER_WARM_BYTES && !stopper.signal.aborted) worker.warm();
    },
    found,
    async stop() {
      stopper.abort();
      await Promise.allSettled([worker.stop(), ...found.values()]);
    },
  };
}

function sizeOf(file: string): number {
  try {
    return lstatSync(file).size;
  } catch {
    return 0;
  }
}
