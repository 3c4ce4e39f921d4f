/**
 * Can bubblewrap start here, with every feature the sandbox uses? Answered once per binary path
 * and cached for the life of the process (a runner's kernel settings do not change mid-run).
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import path from "node:path";
import { errorText } from "../core/errors.ts";
import { spawnThrough } from "../system/spawner.ts";

/** The answer of `detectSandbox`. */
export interface SandboxSupport {
  available: boolean;
  /** The binary probed (absolute when found on PATH); "" when none was found. */
  bwrapPath: string;
  /** Why it is unavailable, with what to do about it. */
  reason?: string;
}

export interface DetectSandboxOptions {
  /** The bubblewrap binary. Default: `env.AGENT_RUN_BWRAP`, else `bwrap` on `env.PATH`. */
  bwrapPath?: string;
  /** Default: process.env. */
  env?: Record<string, string | undefined>;
}

/** Milliseconds the probe may take before bubblewrap counts as unavailable: 15000. */
export const PROBE_TIMEOUT_MS = 15_000;

const cache = new Map<string, Promise<SandboxSupport>>();

/**
 * Runs `bwrap … true` with the same namespaces and mounts a sandboxed command gets. Never
 * rejects; the answer (either way) is cached per binary.
 */
export function detectSandbox(options: DetectSandboxOptions = {}): Promise<SandboxSupport> {
  const env = options.env ?? process.env;
  const wanted = options.bwrapPath ?? env.AGENT_RUN_BWRAP ?? "bwrap";
  const key = `${wanted}\0${wanted.includes("/") ? "" : (env.PATH ?? "")}`;
  let answer = cache.get(key);
  if (!answer) {
    answer = probe(wanted, env);
    cache.set(key, answer);
  }
  return answer;
}

async function probe(wanted: string, env: Record<string, string | undefined>): Promise<SandboxSupport> {
  const bwrapPath = wanted.includes("/") ? path.resolve(wanted) : await onPath(wanted, env.PATH ?? "");
  if (!bwrapPath || !(await isExecutable(bwrapPath))) {
    return {
      available: false,
      bwrapPath: bwrapPath ?? "",
      reason: `bubblewrap is not installed (${wanted} not found); install it with \`sudo apt-get install -y bubblewrap\``,
    };
  }
  const result = await probeRun(bwrapPath, [
    ...["--ro-bind", "/", "/", "--dev", "/dev", "--size", "1048576", "--tmpfs", "/dev/shm"],
    ...["--remount-ro", "/dev", "--proc", "/proc", "--size", "1048576", "--tmpfs", "/tmp"],
    ...["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"],
    ...["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"],
    ...["--", "/bin/sh", "-c", "exit 0"],
  ]);
  if (result.exitCode === 0) return { available: true, bwrapPath };
  const stderr = result.stderr.trim().split("\n")[0] ?? "";
  const why = stderr || result.shortMessage || `exit code ${result.exitCode}`;
  const hint = /unknown option|unrecognized option/i.test(why)
    ? "; the sandbox needs bubblewrap 0.5 or later (for --size): upgrade it"
    : /permission|operation not permitted|uid map|namespace/i.test(why)
      ? "; unprivileged user namespaces look disabled: on Ubuntu 24.04 run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or install an AppArmor profile for bwrap)"
      : "";
  return { available: false, bwrapPath, reason: `bubblewrap cannot start a sandbox here: ${why}${hint}` };
}

interface ProbeResult {
  exitCode: number | undefined;
  stderr: string;
  shortMessage: string;
}

const PROBE_ENV = { PATH: "/usr/bin:/bin" };

/**
 * The probe's bwrap, started by the runner's spawner (system/spawner.ts) where there is one, else
 * spawned directly; never through runProcess: it starts nothing that outlives it
 * (`--die-with-parent`, its own PID namespace), and a sandboxed run then never loads execa (its
 * commands start in the sandbox session).
 */
async function probeRun(file: string, args: string[]): Promise<ProbeResult> {
  const through = await spawnThrough({ file, args, cwd: "/", env: PROBE_ENV, maxBytes: 64 * 1024 });
  if (through) {
    const timer = setTimeout(() => through.kill(), PROBE_TIMEOUT_MS);
    const result = await through.done.finally(() => clearTimeout(timer));
    if (!result.lost) {
      const stderr = result.stderr.toString("utf8");
      if (result.exitCode === 0) return { exitCode: 0, stderr, shortMessage: "" };
      if (result.signal) {
        const shortMessage = `killed with ${result.signal} (no answer within ${PROBE_TIMEOUT_MS / 1000} s)`;
        return { exitCode: undefined, stderr, shortMessage };
      }
      return { exitCode: result.exitCode, stderr, shortMessage: `exit code ${result.exitCode}` };
    }
  }
  return probeSpawned(file, args);
}

function probeSpawned(file: string, args: string[]): Promise<ProbeResult> {
  return new Promise((resolve) => {
    const err: Buffer[] = [];
    let child: ReturnType<typeof spawn>;
    let timer: NodeJS.Timeout | undefined;
    const done = (exitCode: number | undefined, shortMessage: string) => {
      clearTimeout(timer);
      resolve({ exitCode, stderr: Buffer.concat(err).toString("utf8"), shortMessage });
    };
    try {
      child = spawn(file, args, {
        cwd: "/",
        env: PROBE_ENV,
        stdio: ["ignore", "ignore", "pipe"],
      });
    } catch (error) {
      done(undefined, errorText(error));
      return;
    }
    timer = setTimeout(() => child.kill("SIGKILL"), PROBE_TIMEOUT_MS);
    child.stderr?.on("data", (chunk: Buffer) => {
      if (err.length < 64) err.push(chunk);
    });
    child.once("error", (error) => done(undefined, `${errorText(error)}: ${file}`));
    child.once("close", (code, signal) => {
      if (code === 0) done(0, "");
      else if (signal)
        done(
          undefined,
          `killed with ${signal}${signal === "SIGKILL" ? ` (no answer within ${PROBE_TIMEOUT_MS / 1000} s)` : ""}`,
        );
      else done(code ?? undefined, `exit code ${code}`);
    });
  });
}

async function onPath(name: string, searchPath: string): Promise<string | undefined> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
