import type { AgentRunOutcome } from "../core/events.ts";
import type { StreamFunction } from "../core/provider.ts";
import type { AgentMessage, AnyAgentTool, BeforeStopHook } from "../core/types.ts";
import type { McpToolEntry } from "../mcp/index.ts";
import type { Checkpoints, EventsWriter, Redactor, WorkspaceSnapshot } from "../output/index.ts";
import type { createRecorder } from "../providers/index.ts";
import type { LoadedTask, TaskSpec } from "../spec/index.ts";
import type { Compactor } from "./compaction/compactor.ts";
import type { MessageRedactions } from "./message-redactions.ts";
import type { RecordCollector } from "./record.ts";
import type { StructuredResult } from "./result-state.ts";
import type { ResumePlan } from "./resume/prepare-resume.ts";
import type { TranscriptSpool } from "./resume/transcript-spool.ts";
import type { ReviewCollector } from "./review-tool.ts";
import type { RunSandbox } from "./sandbox-setup.ts";
import type { SavedOutputLooks } from "./saved-output-looks.ts";
import type { RunEvent, RunResult, RunTaskOptions } from "./types.ts";

/** Absolute paths of the outputs dir and the files in it (DESIGN §5; `result` for `output_schema`). */
export type RunOutputPaths = Required<RunResult["outputs"]>;

/** A resource of the run's, let go of by the finish phase. */
export interface RunCleanup {
  what: string;
  dispose: () => Promise<void>;
  /**
   * Its work goes into the outputs (a note for the summary): done before they are written, also
   * when the others are let go of while they are (nothing of the model's alive at the end).
   */
  beforeOutputs?: boolean;
}

/**
 * Everything one run carries from `prepareRun` through `executeRun` to `finishRun`. The prepare
 * phase fills the set-up fields; the execute phase records how the agent ended (`outcome` or
 * `crash`); the finish phase turns them into the outputs. Features that need a resource for the
 * run's length (a sandbox, servers) add a `dispose` to `cleanups`: the finish phase runs each once,
 * whatever ended the run.
 */
export interface RunContext {
  readonly options: RunTaskOptions;
  readonly env: NodeJS.ProcessEnv;
  /** Date.now() when the run began. */
  readonly started: number;
  readonly task: LoadedTask;
  readonly spec: TaskSpec;
  readonly workspace: string;
  readonly outputs: RunOutputPaths;
  /** The provider stream, redacting requests (and recording when `--record` is on). */
  readonly stream: StreamFunction;
  readonly recorder: ReturnType<typeof createRecorder> | undefined;
  readonly sandbox: RunSandbox;
  readonly redactor: Redactor;
  /** The conversation's messages redacted once each, for the requests and transcript.json. */
  readonly messageRedactions: MessageRedactions;
  /** The environment the agent's commands start from (see `agentEnv`). */
  readonly commandEnv: NodeJS.ProcessEnv;
  readonly events: EventsWriter;
  readonly collector: RecordCollector;
  /** Records, writes and forwards one event (redacted for the caller's `onEvent`). */
  readonly emit: (event: RunEvent) => void;
  /** Aborted by the timeout ("timeout"), the caller's signal ("SIGINT" / "SIGTERM") or the end ("finished"). */
  readonly controller: AbortController;
  /** The timeout in effect, in milliseconds, if any. */
  readonly timeoutMs: number | undefined;
  /** Tools the runner adds to the spec's (give_up, and those of later features). */
  readonly runnerTools: AnyAgentTool[];
  /** The review comments (spec `review.inline`); undefined when the tool is not offered. */
  readonly review: ReviewCollector | undefined;
  /** Run once each by the finish phase, in reverse order of addition. */
  readonly cleanups: RunCleanup[];
  /**
   * The workspace snapshot being taken, started by the prepare phase (in parallel with the sandbox
   * set-up); it rejects when it cannot be taken. Whatever may change a file (a tool, a command
   * hook, an MCP server, a resumed patch) waits for it first.
   */
  readonly snapshotting: Promise<WorkspaceSnapshot>;
  /** Stops a snapshot still being taken when the run ended without needing it (see `unchanged`). */
  readonly stopSnapshot: AbortController;
  /**
   * Set by the execute phase when the run ended with nothing having waited for the snapshot: no
   * tool, command hook, MCP server or resumed patch ran, so nothing could change a file and the
   * patch is empty without a look at the workspace.
   */
  unchanged: boolean;
  /** This run's id (usage.json `run_id`, transcript.json); a resume names the run it resumed by it. */
  readonly runId: string;
  /** The earlier run this one resumes, checked by the prepare phase. */
  readonly resume: ResumePlan | undefined;
  /** Set by the execute phase once the workspace snapshot is taken. */
  snapshot: WorkspaceSnapshot | undefined;
  /**
   * Set by the execute phase once the agent exists: the conversation as the model would be sent it
   * next (through the compactor's view), for transcript.json.
   */
  transcript: (() => AgentMessage[]) | undefined;
  /** transcript.json as the run goes on, set with `transcript`. */
  transcriptSpool: TranscriptSpool | undefined;
  /** The run's compactor, when the conversation may be compacted. */
  compactor?: Compactor;
  /** Turn-end checkpoints of the snapshot, set with it. */
  checkpoints: Checkpoints | undefined;
  /** Date.now() when the caller's signal stopped the run, if it did. */
  interruptedAt: number | undefined;
  /** How the agent ended; undefined when it never ran or the runner crashed. */
  outcome: AgentRunOutcome | undefined;
  /**
   * Set when the execute phase went on without the agent (it had not stopped STOP_GRACE_MS after
   * the run was): a stuck tool of its may still change a file.
   */
  agentLeftRunning?: boolean;
  /** A runner failure during the execute phase, as the run's reason. */
  crash: string | undefined;
  /** Lines for the summary's notes, gathered during the run. */
  readonly notes: string[];
  /** The task's MCP tools, as the model calls them (also in `runnerTools`). */
  readonly mcpTools: readonly McpToolEntry[];
  /** The structured result of a task with `output_schema` (result-state.ts). */
  readonly result: StructuredResult | undefined;
  /** The spec's `before_stop` checks, once the execute phase built them; `submit_result` runs them. */
  stopChecks: BeforeStopHook | undefined;
  /** Early looks for secrets in the bash tool's saved outputs, started as each command ends. */
  readonly savedOutputLooks: SavedOutputLooks;
}
