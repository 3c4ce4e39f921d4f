/**
 * Decides, once per run, where the model's tools act: bash, command hooks and the file tools
 * inside bubblewrap (one session, see sandbox/session.ts; each stdio MCP server in a bwrap of its
 * own), or (only when the spec and the trigger
 * allow it) without a sandbox, and says why in notes for the summary.
 *
 * - `required`: bubblewrap must start, else `RunSetupError("sandbox_unavailable")` (exit 2,
 *   nothing run, nothing written: like a missing API key, it is the job's set-up that is wrong,
 *   and retrying on the same runner would fail the same way). Also for a task with file tools only.
 * - `auto`: sandboxed when bubblewrap starts; otherwise unsandboxed for a trusted trigger (with a
 *   warning and a note), and the same `RunSetupError` for an untrusted one. A task with file tools
 *   but no bash and no command hooks runs them in the runner's process then, for any trigger,
 *   without a note: they are race-safe there (confined-fs.ts), and a race needs a process the
 *   model controls, which such a task never has.
 * - `off`: never sandboxed; noted in the summary when commands run.
 * A task with neither file tools nor commands has nothing to sandbox: nothing is probed.
 *
 * Either way the commands run under the run's process cap (`caps.processes`, sandbox/process-cap.ts):
 * every bwrap, or each unsandboxed command, is started through its launcher; a note says which
 * cap applied.
 */
import { statSync } from "node:fs";
import path from "node:path";
import type { CommandWrapper } from "../hooks/index.ts";
import type { GitWrap } from "../output/index.ts";
import {
  bubblewrapCommand,
  createCommandServer,
  createProcessCap,
  createSandboxSession,
  detectSandbox,
  findGitCredentials,
  launch,
  type PreparedSandbox,
  type ProcessCap,
  prepareSandbox,
  RUNNER_COMMAND_FILES,
  type SnapshotPlaces,
  sandboxEnv,
  snapshotGitWrapper,
  visibleInSandbox,
  type WrappableCommand,
} from "../sandbox/index.ts";
import type { TaskSpec } from "../spec/index.ts";
import { ownerMarkerEnv } from "../system/reaper.ts";
import type { BashOperations, BashPrepare, FileOperations } from "../tools/index.ts";
import { runProcess } from "../tools/index.ts";
import { RunSetupError } from "./types.ts";

/** The tools that work on files. */
const FILE_TOOLS = new Set(["read", "write", "edit", "ls", "find", "grep"]);

export interface RunSandbox {
  /**
   * "sandboxed": in bubblewrap; "unsandboxed": commands run plainly; "none": the task runs no
   * command (its file tools, if any, run race-safe in the runner's process).
   */
  state: "sandboxed" | "unsandboxed" | "none";
  /** Lines for the summary's notes (why commands ran unsandboxed), each also a warning. */
  notes: string[];
  /** Which process cap held the commands, for the summary's notes (sandbox/process-cap.ts). */
  capNote?: string;
  bashPrepare?: SandboxedBashPrepare;
  wrapHookCommand?: CommandWrapper;
  /**
   * A stdio MCP server's command in a bwrap of its own (network shared when `network`, or when the
   * spec's `sandbox_network` is on), its environment allowlisted but for `passThrough`; or, run
   * unsandboxed, started under the process cap. Undefined: run as is.
   */
  wrapServerCommand?: (
    command: WrappableCommand,
    options: { network: boolean; passThrough: readonly string[] },
  ) => WrappableCommand;
  /** The file tools' operations inside the session; undefined: they run in the runner's process. */
  fileOperations?: FileOperations;
  /** Credential values found in the workspace's git config (for the redactor). */
  gitSecrets: string[];
  /** Starts the sandbox session ahead of its first use (see SandboxSession.prestart). */
  prestart?(): void;
  /**
   * Where the workspace snapshot's git reads the workspace while the model's processes may live (a
   * link it follows mid-walk leads only where the model could read; sandbox/snapshot-git.ts):
   * a wrapper that puts it in a bwrap until the sandbox is gone, then runs it as is; "unconfinable"
   * when no bwrap can see the work tree and object store git needs. Undefined: no sandbox, where
   * the model's commands can read the host anyway.
   */
  snapshotGit?(places: SnapshotPlaces): GitWrap | "unconfinable";
  /**
   * Whether no process of the model's (bash's commands and what they left, hooks, MCP servers) can
   * be alive now, so that until a tool or hook starts one, nothing but the runner's tools changes
   * the workspace. Undefined: it cannot be told (one may be).
   */
  quiet?(): Promise<boolean>;
  dispose(): Promise<void>;
}

/**
 * The bash tool's `prepare` when sandboxed, with the `run` that goes with it: `prepare` alone
 * gives each command its own bwrap; `run` (the run's sandbox session) runs the commands that
 * `prepare` wrapped in one long-lived bwrap instead, and any other command as given.
 */
export type SandboxedBashPrepare = BashPrepare & { run?: BashOperations["run"] };

export interface SetupSandboxInput {
  spec: TaskSpec;
  workspace: string;
  /** Protected globs of the run (see `protectedPaths`). */
  protectedGlobs: string[];
  /**
   * The bash tool's `<outDir>/tool-output`, bound read-write in the session. Default: the folder
   * of the first command's output file.
   */
  toolOutputDir?: string;
  env: NodeJS.ProcessEnv;
  /** Whether the trigger is trusted (see RunTaskOptions.trusted). */
  trusted: boolean;
  /** Told when something changes during the run (the bash session fell back), for the log. */
  onWarning?: (message: string) => void;
}

/** Resolves the spec's `sandbox` mode for this machine and trigger. Throws RunSetupError (exit 2). */
export async function setupSandbox(input: SetupSandboxInput): Promise<RunSandbox> {
  const { spec } = input;
  // Credentials in the git configs (the workspace's, the system's, the user's) are redacted
  // whatever the mode: read tools and unsandboxed commands can see them. They are read, and the
  // process cap made, while bubblewrap is probed: all three are on the way to the first request.
  const credentials = findGitCredentials(input.workspace, input.env);
  const { runsCommands, usesFiles, notOnlyBash } = sandboxNeeds(spec);
  const capping =
    runsCommands || (usesFiles && spec.sandbox !== "off")
      ? createProcessCap({ limit: spec.caps.processes })
      : undefined;
  const support =
    spec.sandbox !== "off" && (runsCommands || usesFiles) ? detectSandbox({ env: input.env }) : undefined;
  const gitSecrets = (await credentials).flatMap((config) => config.secrets);
  const none = async (): Promise<RunSandbox> => {
    await (await capping)?.dispose();
    // Nothing the spec runs starts a process.
    return { state: "none", notes: [], gitSecrets, quiet: async () => true, dispose: async () => {} };
  };
  const refuse = async (error: RunSetupError): Promise<never> => {
    await (await capping)?.dispose();
    throw error;
  };
  if (!runsCommands && !usesFiles) return none();

  if (!support || !capping) {
    if (!runsCommands || !capping) return none();
    return unsandboxed(
      input,
      await capping,
      gitSecrets,
      "bash and command hooks ran without a sandbox (sandbox: off in the task spec).",
    );
  }
  const answer = await support;
  if (!answer.available) {
    const why = answer.reason ?? "bubblewrap is unavailable";
    if (spec.sandbox === "required") {
      return refuse(
        new RunSetupError(
          "sandbox_unavailable",
          `the task requires a sandbox (sandbox: required), but ${why}`,
        ),
      );
    }
    if (!runsCommands) return none();
    if (!input.trusted) {
      return refuse(
        new RunSetupError(
          "sandbox_unavailable",
          `the trigger is untrusted, so bash and command hooks must run in a sandbox (sandbox: auto), but ${why}`,
        ),
      );
    }
    return unsandboxed(
      input,
      await capping,
      gitSecrets,
      `bash and command hooks ran without a sandbox (sandbox: auto, trusted trigger): ${why}.`,
    );
  }

  const cap = await capping;
  let prepared: PreparedSandbox;
  try {
    prepared = await prepareSandbox({
      bwrapPath: answer.bwrapPath,
      workspace: input.workspace,
      protectedGlobs: input.protectedGlobs,
      network: spec.sandboxNetwork,
      tmpfsBytes: { tmp: spec.caps.tmpBytes, devShm: spec.caps.devShmBytes, home: spec.caps.homeBytes },
      ...(cap.launcher && { launcher: cap.launcher }),
      env: input.env,
    });
  } catch (error) {
    await cap.dispose();
    throw error;
  }
  const passThrough = spec.tools.find((tool) => tool.name === "bash")?.options.env ?? [];
  const notes: string[] = capWarnings(cap);
  // One bwrap for the run's bash commands and file tools (see sandbox/session.ts); if it cannot
  // start or dies, each command gets its own bwrap again, as `prepare` wrote it, and the file
  // tools a spare session: never no sandbox.
  const session = createSandboxSession({
    policy: prepared.policy,
    serverEnv: sandboxEnv(input.env, { home: prepared.policy.home }),
    fallback: runProcess,
    ...(input.toolOutputDir !== undefined && { toolOutputDir: input.toolOutputDir }),
    onDown: (reason) => {
      const note = `the sandbox session for bash and the file tools stopped (${reason}); later bash commands ran in a sandbox of their own each, file tools in a spare session.`;
      notes.push(note);
      input.onWarning?.(note);
    },
  });
  // Until a process of the model's may live, nothing can swap a folder for a link under the
  // snapshot's git: bash's commands start only while no checkpoint walks the workspace (the tools
  // wait for it), and only bash starts any when there are no command hooks and no stdio MCP
  // servers. So the checkpoints before the first command need no bwrap (~25 ms each here).
  let modelProcesses = notOnlyBash;
  /** Commands bash has prepared; the count when the session last said nothing of the model's lives. */
  let commands = 0;
  let quietAfter: number | undefined;
  const bashPrepare: SandboxedBashPrepare = (execution) => {
    modelProcesses = true;
    commands++;
    const env = sandboxEnv(execution.env, { home: prepared.policy.home, passThrough });
    const command = prepared.wrapScript(execution.command, execution.cwd, execution.env, passThrough);
    session.remember(command, { script: execution.command, cwd: execution.cwd, env });
    return { command, cwd: execution.cwd, env };
  };
  bashPrepare.run = session.run;
  let released = false;
  // Only bash's commands may have started processes, all in the session (which sees its whole
  // PID namespace), and all of them have ended: as before the first command, nothing can swap a
  // folder or change a file until the runner starts another (tools and hooks wait for the index
  // updates that ask). So the session's yes holds until bash prepares a command: a checkpoint's
  // update and each of its git processes ask once between them.
  const quiet = async () => {
    if (released || !modelProcesses) return true;
    if (notOnlyBash) return false;
    if (quietAfter === commands) return true;
    const asked = commands;
    const answer = await session.quiet();
    if (answer && asked === commands) quietAfter = asked;
    return answer;
  };
  return {
    state: "sandboxed",
    notes,
    capNote: cap.note,
    gitSecrets: prepared.gitSecrets,
    bashPrepare,
    wrapHookCommand: (command) => prepared.wrapCommand(command),
    wrapServerCommand: (command, options) => {
      const policy = {
        ...prepared.policy,
        reveal: [...(prepared.policy.reveal ?? []), ...namedFolders(prepared.policy, command)],
        network: prepared.policy.network || options.network,
        env: sandboxEnv(command.env, { home: prepared.policy.home, passThrough: options.passThrough }),
      };
      return {
        ...bubblewrapCommand(policy, [command.file, ...command.args], command.cwd),
        cwd: command.cwd,
        env: policy.env,
      };
    },
    ...(usesFiles && { fileOperations: session.fileOperations(input.workspace) }),
    prestart: () => session.prestart(),
    snapshotGit: (places) => {
      const wrap = snapshotGitWrapper(prepared.policy, places);
      if (!wrap) return "unconfinable";
      // A bwrap for each git of a checkpoint was most of its time (~70 ms here).
      return async (command) => ((await quiet()) ? command : wrap(command));
    },
    quiet,
    dispose: async () => {
      await session.dispose();
      await cap.dispose();
      // Every process of the model's has ended with the session and the cap (its cgroup killed):
      // nothing can swap a folder now. Until here the mask files the bwraps bind must stay.
      released = true;
      await prepared.dispose();
    },
  };
}

/**
 * What of the spec's would run in the sandbox: commands (bash, stdio MCP servers, command hooks),
 * file tools; and whether anything but bash starts commands.
 */
function sandboxNeeds(spec: TaskSpec): { runsCommands: boolean; usesFiles: boolean; notOnlyBash: boolean } {
  const hooks = spec.hooks;
  const notOnlyBash =
    spec.mcpServers.some((server) => server.transport === "stdio") ||
    [...hooks.beforeToolCall, ...hooks.afterToolCall, ...hooks.beforeStop].some(
      (rule) => rule.run !== undefined,
    );
  return {
    runsCommands: notOnlyBash || spec.tools.some((tool) => tool.name === "bash"),
    usesFiles: spec.tools.some((tool) => FILE_TOOLS.has(tool.name)),
    notOnlyBash,
  };
}

/**
 * Starts the bubblewrap probe `setupSandbox` will make for `spec` (its answer is kept for the
 * process), so that its ~10-20 ms of waiting for bwrap overlap the rest of the set-up.
 */
export function probeSandboxEarly(spec: TaskSpec, env: NodeJS.ProcessEnv): void {
  const { runsCommands, usesFiles } = sandboxNeeds(spec);
  if (spec.sandbox !== "off" && (runsCommands || usesFiles)) void detectSandbox({ env });
}

/** A cap that does not hold well (RLIMIT_NPROC, none) is worth a warning too. */
function capWarnings(cap: ProcessCap): string[] {
  return cap.kind === "rlimit" || cap.kind === "none" ? [cap.note] : [];
}

/**
 * Commands run as they are, each started under the run's process cap. The bash tool's are started
 * by the exec server run without a sandbox (sandbox/command-server.ts: a fork from a small process
 * instead of the runner's big one); hooks' and MCP servers' by the runner, as before.
 */
function unsandboxed(
  input: SetupSandboxInput,
  cap: ProcessCap,
  gitSecrets: string[],
  why: string,
): RunSandbox {
  const { launcher } = cap;
  const prefix = launcher ? cap.scriptPrefix : undefined;
  const server = input.spec.tools.some((tool) => tool.name === "bash")
    ? createCommandServer({
        workspace: input.workspace,
        // The server needs nothing of the runner's environment (least of all NODE_OPTIONS); each
        // command brings its own. The marker lets the reaper find it, as it finds the commands.
        serverEnv: {
          ...(input.env.PATH !== undefined && { PATH: input.env.PATH }),
          ...ownerMarkerEnv(),
        },
        fallback: runProcess,
        ...(launcher && { launcher }),
        ...(input.toolOutputDir !== undefined && { toolOutputDir: input.toolOutputDir }),
        onDown: (reason) =>
          input.onWarning?.(
            `the process that starts bash commands stopped (${reason}); later commands were started by the runner itself.`,
          ),
      })
    : undefined;
  let released = false;
  const { cgroup } = cap;
  // Under a cgroup cap, every command of bash's runs in the cgroup: those the server starts (it is
  // there itself) and those the runner starts, which move themselves in on their first line, before
  // anything of the command runs. So when the group holds no process but the server, nothing of the
  // model's is alive, and until a tool starts a command nothing can be (the tools wait for the
  // checkpoints, as sandboxed). Hooks and MCP servers start at other moments: then it is never
  // told, as sandboxed. Without a cgroup (an rlimit, or no cap) it cannot be told.
  const quiet =
    cgroup && !sandboxNeeds(input.spec).notOnlyBash
      ? async () => {
          if (released) return true;
          const own = server?.pid;
          return cgroup.processes().every((pid) => pid === own);
        }
      : undefined;
  const base: RunSandbox = {
    state: "unsandboxed",
    notes: [why, ...capWarnings(cap)],
    capNote: cap.note,
    gitSecrets,
    ...(server && { prestart: () => server.prestart() }),
    ...(quiet && { quiet }),
    dispose: async () => {
      await server?.dispose();
      await cap.dispose();
      released = true;
    },
  };
  // The bash tool runs `bash -c <command>`, hooks `bash --norc --noprofile -c <command>`: that
  // bash puts itself under the cap first, on the script's first line (so line numbers stay), and
  // nothing of the command runs before. (A move into a cgroup costs a few milliseconds; the
  // launcher's two extra execs would double that.) The server is under the cap already, so what
  // it starts runs the command as it is; the line is for a command the runner starts itself.
  const bashPrepare: SandboxedBashPrepare = (execution) => {
    const command = (prefix ?? "") + execution.command;
    server?.remember(command, { script: execution.command, cwd: execution.cwd, env: execution.env });
    return { ...execution, command };
  };
  if (server) bashPrepare.run = server.run;
  if (!launcher || prefix === undefined) return { ...base, ...(server && { bashPrepare }) };
  return {
    ...base,
    bashPrepare,
    wrapHookCommand: (command) => {
      const script = command.args.at(-1);
      if (command.file === "bash" && command.args.at(-2) === "-c" && script !== undefined) {
        return { ...command, args: [...command.args.slice(0, -1), prefix + script] };
      }
      return { ...command, ...launch(launcher, command.file, command.args) };
    },
    wrapServerCommand: (command) => ({ ...command, ...launch(launcher, command.file, command.args) }),
  };
}

/**
 * The environment the agent's commands start from: `env` without the Actions runner's command files
 * (`GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_STATE`), so even an
 * unsandboxed command does not learn where they are from its environment.
 */
export function agentEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  for (const name of RUNNER_COMMAND_FILES) delete copy[name];
  return copy;
}

export type { PreparedSandbox };

/**
 * The folders of the files a server's command line names by absolute path (its program, its
 * script) that lie under a folder the sandbox hides (/tmp, $HOME: a checkout or a script kept
 * there), to bind back read-only. The task's author named them, like the PATH folders revealed
 * for commands; without them the server could not even load its own script. A file lying right in
 * a hidden folder is bound alone: its folder would be all of $HOME (~/.ssh, ~/.aws) or /tmp.
 */
function namedFolders(policy: PreparedSandbox["policy"], command: WrappableCommand): string[] {
  const hiddenRoots = new Set([policy.home, "/tmp", "/run", ...policy.hide]);
  const folders = new Set<string>();
  for (const word of [command.file, ...command.args]) {
    if (!path.isAbsolute(word) || visibleInSandbox(policy, word)) continue;
    if (!statSync(word, { throwIfNoEntry: false })?.isFile()) continue;
    const folder = path.dirname(word);
    folders.add(hiddenRoots.has(folder) ? word : folder);
  }
  return [...folders];
}
