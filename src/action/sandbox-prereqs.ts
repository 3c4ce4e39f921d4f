/**
 * Gets bubblewrap ready on GitHub-hosted Linux runners before the run probes it: installs the
 * `bubblewrap` package when `bwrap` is missing, and on Ubuntu 24.04 lifts the AppArmor restriction
 * on unprivileged user namespaces that stops it. Only on GitHub-hosted runners (a throwaway VM
 * with passwordless sudo); a self-hosted machine is left alone, with a line saying what it needs.
 * Every step that cannot be done is logged with its reason; none fails the step: the runner's own
 * probe then decides (`sandbox: required` or an untrusted trigger stop with exit 2).
 */
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { errorText } from "../core/errors.ts";
import { peekTaskDocument } from "../spec/spec-file.ts";

/** The AppArmor switch Ubuntu 24.04 uses to restrict unprivileged user namespaces. */
export const APPARMOR_USERNS_SYSCTL = "kernel.apparmor_restrict_unprivileged_userns";

export interface PrereqOps {
  /** Runs a command; resolves with its exit code (undefined when it could not start) and stderr. */
  exec: (file: string, args: string[]) => Promise<{ exitCode: number | undefined; stderr: string }>;
  /** Reads a small file; undefined when it cannot. */
  readText: (file: string) => Promise<string | undefined>;
  /** Whether an executable named `name` is on PATH. */
  onPath: (name: string) => Promise<boolean>;
}

/** Real operations: commands time out after 5 minutes (apt-get on a busy mirror). */
export function realPrereqOps(env: NodeJS.ProcessEnv = process.env): PrereqOps {
  return {
    async exec(file, args) {
      const { runProcess } = await import("../system/process.ts");
      const result = await runProcess(file, args, { cwd: "/", timeoutMs: 300_000 });
      return { exitCode: result.exitCode, stderr: result.stderr.trim().split("\n").at(-1) ?? "" };
    },
    readText: (file) => readFile(file, "utf8").catch(() => undefined),
    async onPath(name) {
      for (const dir of (env.PATH ?? "").split(path.delimiter)) {
        if (
          dir &&
          (await access(path.join(dir, name)).then(
            () => true,
            () => false,
          ))
        )
          return true;
      }
      return false;
    },
  };
}

/** One line for the log: "info" for what was done, "warning" for what could not be. */
export interface PrereqNote {
  level: "info" | "warning";
  message: string;
}

/** The spec's `sandbox` field (`required`, `auto`, `off`), or undefined when unset or unreadable. */
export async function readSandboxMode(taskFile: string | undefined): Promise<string | undefined> {
  if (taskFile === undefined) return undefined;
  try {
    const mode = (await peekTaskDocument(taskFile))?.doc.get("sandbox");
    return typeof mode === "string" ? mode : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Installs bubblewrap and lifts the AppArmor restriction when needed and allowed. Returns the
 * notes to log (each says what was done, or why not). `sandboxMode` is the spec's `sandbox`
 * ("off" skips everything). Never throws.
 */
export async function prepareSandboxPrereqs(options: {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  sandboxMode: string | undefined;
  ops: PrereqOps;
}): Promise<PrereqNote[]> {
  const { env, ops } = options;
  if (options.sandboxMode === "off" || options.platform !== "linux" || env.GITHUB_ACTIONS !== "true")
    return [];
  const hosted = env.RUNNER_ENVIRONMENT === "github-hosted";
  const lines: PrereqNote[] = [];
  const info = (message: string) => lines.push({ level: "info", message });
  const warn = (message: string) => lines.push({ level: "warning", message });
  try {
    if (!(await ops.onPath("bwrap"))) {
      if (!hosted) {
        warn(
          "bubblewrap is not installed and this is not a GitHub-hosted runner, so it is not installed for you: `sudo apt-get install -y bubblewrap`",
        );
      } else {
        const installArgs = ["-n", "apt-get", "install", "-y", "--no-install-recommends", "bubblewrap"];
        let install = await ops.exec("sudo", installArgs);
        if (install.exitCode !== 0) {
          // A fresh runner's package lists may be stale: update once, then try again.
          await ops.exec("sudo", ["-n", "apt-get", "update"]);
          install = await ops.exec("sudo", installArgs);
        }
        if (install.exitCode === 0) info("installed bubblewrap (apt-get install bubblewrap)");
        else warn(`could not install bubblewrap: ${install.stderr || `exit code ${install.exitCode}`}`);
      }
    }
    const restricted = (
      await ops.readText(`/proc/sys/${APPARMOR_USERNS_SYSCTL.replaceAll(".", "/")}`)
    )?.trim();
    if (restricted === "1") {
      if (!hosted) {
        warn(
          `AppArmor restricts unprivileged user namespaces (${APPARMOR_USERNS_SYSCTL}=1), which bubblewrap needs; not changed on a self-hosted runner: \`sudo sysctl -w ${APPARMOR_USERNS_SYSCTL}=0\` or an AppArmor profile for bwrap`,
        );
      } else {
        const set = await ops.exec("sudo", ["-n", "sysctl", "-w", `${APPARMOR_USERNS_SYSCTL}=0`]);
        if (set.exitCode === 0)
          info(`set ${APPARMOR_USERNS_SYSCTL}=0 so bubblewrap can create its namespaces`);
        else {
          warn(
            `could not set ${APPARMOR_USERNS_SYSCTL}=0 (${set.stderr || `exit code ${set.exitCode}`}); bubblewrap may not start`,
          );
        }
      }
    }
  } catch (error) {
    warn(`sandbox set-up failed: ${errorText(error)}`);
  }
  return lines;
}
