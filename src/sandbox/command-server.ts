/**
 * The exec server (exec-server.ts) without a sandbox, for a run whose commands run unsandboxed
 * (`sandbox: off`, or `auto` where bubblewrap cannot start): it starts the bash tool's commands and
 * nothing else. Started like a sandbox session (on first use, or when the model's first tool call
 * starts streaming), ended with the run; a command that comes while it starts does not wait for it
 * (50-180 ms here) but is started by the runner, as every command was before.
 *
 * Why a process between the runner and its commands: `child_process.spawn` forks the calling
 * process, and a fork copies its page tables on the caller's thread. The runner is the biggest
 * process of a run (100 MB and more); on a guest whose page-table writes trap to the hypervisor
 * that was ~8 ms of every command, against a fraction of it from the small server.
 *
 * What a command gets is what `runProcess` gives it (system/process.ts): `bash -c` with exactly
 * its environment plus the runner's owner marker (so the reaper and the end's sweep of leftovers
 * find what it leaves), its own session and process group, the output file as stdout and stderr,
 * SIGTERM then SIGKILL to the group on timeout or abort and once its leader exits. The reaper
 * watches each group, as for `runProcess`, so a runner killed with its server leaves none behind.
 * When the server cannot start or dies, commands run through `fallback` (`runProcess`), as
 * before; it never changes whether a command is sandboxed.
 *
 * With the run's process cap (`launcher`), the server itself is started under it, so what it
 * forks is under the cap from its first instruction and need not move itself there: a move into a
 * cgroup waits for an RCU grace period (~15 ms a command on this project's machine, cgroup v1),
 * where a fork inherits the group for nothing. The server's own threads (7) count against the cap,
 * as the sandbox session's do. A server that cannot join the cap does not start (the launcher
 * exits 126), so no command ever runs outside it.
 */
import type { runProcess } from "../system/process.ts";
import { ownerMarkerEnv, watchGroup } from "../system/reaper.ts";
import type { SandboxSessionOptions } from "./session.ts";
import { createSessionChannel } from "./session-channel.ts";
import { createSessionCommands } from "./session-commands.ts";

/** The sandbox session's options that mean the same here, and the folder the server runs in. */
export type CommandServerOptions = Pick<
  SandboxSessionOptions,
  "serverEnv" | "fallback" | "onDown" | "toolOutputDir" | "nodePath" | "startTimeoutMs"
> & {
  /** The folder the server runs in (the workspace). */
  workspace: string;
  /** The run's process-cap launcher (process-cap.ts) the server is started through. Default: none. */
  launcher?: readonly string[];
};

export interface CommandServer {
  /**
   * Has the server run `command.script` (default: `script`) in `cwd` with `env`, when `run` is
   * given `bash -c script`: the script without the cap's line for a server under the cap.
   */
  remember(script: string, command: { script?: string; cwd: string; env: Record<string, string> }): void;
  /** `runProcess` through the server (see session-commands.ts). */
  run: typeof runProcess;
  /** Starts the server now, in the background, instead of on first use. */
  prestart(): void;
  /** The server's process id while it runs (under the cap, it is the one process there of its own). */
  readonly pid: number | undefined;
  /** Ends the server: its stdin closes, it SIGKILLs every group it started and exits. */
  dispose(): Promise<void>;
}

export function createCommandServer(options: CommandServerOptions): CommandServer {
  const channel = createSessionChannel({
    ...options,
    place: { unsandboxed: options.workspace, ...(options.launcher && { launcher: options.launcher }) },
  });
  const commands = createSessionCommands(channel, {
    fallback: options.fallback,
    toolOutputDir: options.toolOutputDir,
    watch: watchGroup,
    signals: "as-runProcess",
    fallbackWhileStarting: true,
  });
  let disposed = false;
  return {
    remember(script, command) {
      commands.remember(script, {
        script: command.script ?? script,
        cwd: command.cwd,
        env: { ...command.env, ...ownerMarkerEnv() },
      });
    },
    run: commands.run,
    prestart() {
      if (disposed || channel.state !== "idle") return;
      channel.start(options.toolOutputDir).catch(() => {});
    },
    get pid() {
      return channel.pid;
    },
    async dispose() {
      disposed = true;
      commands.forgetAll();
      await channel.dispose();
    },
  };
}
