/**
 * Looks for secrets in saved outputs in a worker thread (./secret-look-worker.ts), for outputs big
 * enough that the look would hold the run's own thread for long: 23 MB take ~45-55 ms of a core
 * here, and on the run's thread, between the last turn and the finish phase's git processes, they
 * stretched S4's end from ~45 to ~100 ms (docs/benchmarks.md, twenty-second session).
 *
 * A worker takes ~30-45 ms to come online, so the run starts it (`warm`) as soon as a running
 * command's output passes WORKER_WARM_BYTES, while the command still runs. Each
 * look answers as lookForSecrets does; when the worker cannot start or fails, its looks answer
 * undefined, which leaves the file to the finish phase's own pass (nothing is taken as clean that
 * was not seen clean).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type Redactor, redactorSecrets } from "./redact.ts";
import type { CleanAsOf } from "./redact-files.ts";

/** A running command's output past this many bytes starts the worker (`warm`): 1 MiB. */
export const WORKER_WARM_BYTES = 1024 * 1024;
/**
 * A finished output of at least this many bytes is looked through in the worker even when it was
 * not warmed (a command that wrote it all before its first check): 8 MiB, ~15 ms on the run's
 * thread, about what the worker takes to start. A warmed worker takes every output of
 * WORKER_WARM_BYTES or more.
 */
export const WORKER_LOOK_MIN_BYTES = 8 * 1024 * 1024;

export type LookRequest =
  | { type: "look"; id: number; file: string; secrets: readonly string[]; version: number }
  | { type: "stop" };

export interface LookReply {
  id: number;
  seen: CleanAsOf | undefined;
}

export interface SecretLookWorker {
  /** Starts the worker, if it is not running; false when it cannot run (no worker file, no secrets list). */
  warm(): boolean;
  /** Whether the worker was started. */
  readonly warmed: boolean;
  /** The look at `file` in the worker (started if needed); undefined when it cannot run there. */
  look(file: string): Promise<CleanAsOf | undefined> | undefined;
  /**
   * Stops its looks (they answer undefined at once) and lets the worker end; resolves once it has,
   * the files it was reading closed, or after STOP_WAIT_MS. Never rejects.
   */
  stop(): Promise<void>;
}

/**
 * How long `stop` waits for the worker to end: 2 s. A look stops between two pieces of 1 MiB, so
 * it ends within milliseconds; the bound is for a worker that never gets to read its messages.
 */
export const STOP_WAIT_MS = 2000;

export function createSecretLookWorker(redactor: Pick<Redactor, "redact" | "version">): SecretLookWorker {
  let worker: Worker | undefined;
  let failed = false;
  let stopped = false;
  let nextId = 0;
  /** Whether the worker keeps the process alive now. */
  let held = false;
  /** Whether a stop waits for the worker's end (it is then held until that end). */
  let stopping = false;
  const hold = (on: boolean) => {
    if (!worker || held === on) return;
    held = on;
    if (on) worker.ref();
    else worker.unref();
  };
  /** Resolves when the worker has ended (at once while there is none). */
  let ended: Promise<void> = Promise.resolve();
  const pending = new Map<number, (seen: CleanAsOf | undefined) => void>();
  const settleAll = () => {
    for (const resolve of pending.values()) resolve(undefined);
    pending.clear();
  };

  const start = (): Worker | undefined => {
    if (worker || failed || stopped) return worker;
    const file = workerFile();
    if (!redactorSecrets(redactor) || !file) {
      failed = true;
      return undefined;
    }
    try {
      worker = new Worker(file, { stdout: true, stderr: true });
    } catch {
      failed = true;
      return undefined;
    }
    // What keeps the process alive only while a look or a stop waits for it (`hold`): a run whose
    // end awaits a look's answer must not find its event loop empty and exit (code 13, no outputs).
    worker.unref();
    // Whatever the worker prints (a warning of Node's) is not the run's output.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on("message", (reply: LookReply) => {
      pending.get(reply.id)?.(reply.seen);
      pending.delete(reply.id);
      if (pending.size === 0 && !stopping) hold(false);
    });
    const gone = () => {
      failed = true;
      settleAll();
    };
    worker.on("error", gone);
    worker.on("exit", gone);
    const started = worker;
    ended = new Promise((resolve) => started.once("exit", () => resolve()));
    return worker;
  };

  return {
    warm: () => start() !== undefined,
    get warmed() {
      return worker !== undefined;
    },
    look(file) {
      const running = start();
      const secrets = redactorSecrets(redactor);
      if (!running || !secrets || failed || stopped) return undefined;
      const id = ++nextId;
      const seen = new Promise<CleanAsOf | undefined>((resolve) => pending.set(id, resolve));
      const request: LookRequest = { type: "look", id, file, secrets, version: redactor.version };
      running.postMessage(request);
      hold(true);
      return seen;
    },
    stop() {
      if (!stopped) {
        stopped = true;
        settleAll();
        const stop: LookRequest = { type: "stop" };
        worker?.postMessage(stop);
      }
      stopping = true;
      hold(true);
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_WAIT_MS);
        timer.unref();
      });
      return Promise.race([ended, waited]).finally(() => {
        clearTimeout(timer);
        hold(false);
      });
    },
  };
}

/**
 * The worker's file: beside this module in the sources (.ts) and the library's build (.js); in
 * the bundle, where this module is in dist/core or dist/core/chunks, dist/worker/secret-look.cjs
 * (rolldown.config.ts). Undefined when it is not there.
 */
function workerFile(): string | undefined {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  const extension = path.extname(here);
  const core = path.basename(dir) === "chunks" ? path.dirname(dir) : dir;
  const file =
    extension === ".cjs"
      ? path.join(path.dirname(core), "worker", "secret-look.cjs")
      : path.join(dir, `secret-look-worker${extension}`);
  return existsSync(file) ? file : undefined;
}
