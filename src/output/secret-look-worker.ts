/**
 * The worker thread of ./secret-look.ts: looks through saved outputs for secrets
 * (redact-files.ts lookForSecrets) with a redactor built from the run's secrets, so that a big
 * output's look runs on another core than the run's own thread. Bundled on its own
 * (dist/worker/secret-look.cjs, see rolldown.config.ts).
 *
 * `stop` stops the looks between two pieces; each closes its file and answers, and the worker
 * then ends by itself (no `terminate`, which would leave their files to the garbage collector).
 */
import { parentPort } from "node:worker_threads";
import { createRedactor, type Redactor } from "./redact.ts";
import { lookForSecrets } from "./redact-files.ts";
import type { LookReply, LookRequest } from "./secret-look.ts";

const port = parentPort;
/** The redactor of the last look, and how many secrets it was built from. */
let built: { redactor: Redactor; secrets: number } | undefined;
const stopper = new AbortController();
let running = 0;

port?.on("message", (message: LookRequest) => {
  if (message.type === "stop") {
    stopper.abort();
    if (running === 0) port.close();
    return;
  }
  const { id, file, secrets, version } = message;
  // One run's secrets, which are only ever added to: a list as long as the last is the same list.
  if (built?.secrets !== secrets.length) {
    built = { redactor: createRedactor({ extra: [...secrets] }), secrets: secrets.length };
  }
  running++;
  // What the look saw holds under the run's redactor at `version`, the one the secrets came from.
  void lookForSecrets(
    file,
    {
      redact: built.redactor.redact,
      redactLatin1: built.redactor.redactLatin1,
      pieceCuts: built.redactor.pieceCuts,
      version,
    },
    stopper.signal,
  ).then((seen) => {
    running--;
    const reply: LookReply = { id, seen };
    port.postMessage(reply);
    if (running === 0 && stopper.signal.aborted) port.close();
  });
});
