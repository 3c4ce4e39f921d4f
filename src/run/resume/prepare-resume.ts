/**
 * Resuming an earlier run (`--resume DIR`, action input `resume`; DESIGN §7): everything that can
 * refuse the resume is checked here, in the prepare phase, before anything is written or changed.
 * DIR must hold the earlier run's transcript.json and patch.diff; the patch must either apply to
 * the workspace or be held by it already; the model must be the earlier one, or one the transcript
 * carries over to faithfully (no signed reasoning of another model in it). A refusal is a usage
 * error (exit 2) and changes nothing.
 */
import { copyFile, stat } from "node:fs/promises";
import path from "node:path";
import type { AgentMessage, Model } from "../../core/types.ts";
import { checkPatch, OUTPUT_FILES } from "../../output/index.ts";
import { modelLabel } from "../../providers/index.ts";
import { makeRunTempDir, removeRunTempDir } from "../../system/run-temp.ts";
import { RunSetupError } from "../types.ts";
import { readTranscript, restoreMessages, type TranscriptFile } from "./transcript-file.ts";

/** What the resumed run starts with when no follow-up prompt is given. */
export const DEFAULT_FOLLOW_UP =
  "The run that worked on this task stopped before it was done. Its changes are in the workspace. Continue the task from where it stopped: check what is done, do what is left, then reply with a summary of everything done across both runs.";

export interface ResumePlan {
  /** The earlier run's outputs dir, absolute. */
  dir: string;
  transcript: TranscriptFile;
  /** The conversation to continue (made whole: every tool call has a result). */
  messages: AgentMessage[];
  /** A copy of the earlier patch.diff, taken now: the earlier dir may be this run's outputs dir. */
  patchFile: string;
  /** "applies": applied once the snapshot is taken; "held": taken out of the snapshot instead. */
  patch: "empty" | "applies" | "held";
  /** Lines for the run's notes (a model change the transcript carries over). */
  notes: string[];
  dispose(): Promise<void>;
}

/** Checks a resume of `dir` into `workspace` with `model`; throws `RunSetupError` (exit 2) to refuse. */
export async function prepareResume(dirArg: string, workspace: string, model: Model): Promise<ResumePlan> {
  const dir = path.resolve(dirArg);
  const refuse = (code: ResumeRefusal, message: string, cause?: unknown): never => {
    throw new RunSetupError(code, `cannot resume from ${dir}: ${message}`, { cause });
  };
  if (!(await stat(dir).catch(() => undefined))?.isDirectory())
    refuse("resume_invalid", "it is not a folder");
  let transcript: TranscriptFile;
  try {
    transcript = await readTranscript(dir);
  } catch (error) {
    return refuse("resume_invalid", error instanceof Error ? error.message : String(error), error);
  }
  const notes: string[] = [];
  const label = modelLabel(model);
  if (transcript.model !== label) {
    const foreign = foreignReasoning(transcript.messages, model);
    if (foreign) {
      refuse(
        "resume_model_mismatch",
        `the earlier run used ${transcript.model}, and its transcript holds reasoning signed by ${foreign}, which ${label} cannot take over; resume with --model ${transcript.model}`,
      );
    }
    notes.push(
      `Resumed with ${label}, while the earlier run used ${transcript.model}: its transcript holds nothing signed by that model, so it carries over as it is.`,
    );
  }

  const earlierPatch = path.join(dir, OUTPUT_FILES.patch);
  // A run temp dir: the reaper removes it when the runner is killed outright.
  const temp = await makeRunTempDir("resume");
  const dispose = () => removeRunTempDir(temp);
  try {
    const patchFile = path.join(temp, OUTPUT_FILES.patch);
    // A FIFO or a device would hang the copy or fill the disk: only a regular file is taken.
    if (!(await stat(earlierPatch).catch(() => undefined))?.isFile())
      refuse("resume_invalid", `${earlierPatch} is missing or not a regular file`);
    try {
      await copyFile(earlierPatch, patchFile);
    } catch (error) {
      refuse("resume_invalid", `${earlierPatch} cannot be read`, error);
    }
    const state = await checkPatch(workspace, patchFile);
    if (state.state !== "empty" && transcript.patch_had_secret) {
      refuse(
        "resume_patch_secret",
        "the earlier run's patch held a secret value and was redacted in patch.diff, so it cannot be applied or recognised; resume in the workspace that run left behind, or start over",
      );
    }
    if (state.state === "conflicts") {
      refuse(
        "resume_patch_conflict",
        `its patch.diff neither applies to ${workspace} nor is held by it (${state.detail}); check out the commit the earlier run started from`,
      );
    }
    return {
      dir,
      transcript,
      messages: restoreMessages(transcript.messages),
      patchFile,
      patch: state.state === "conflicts" ? "empty" : state.state,
      notes,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

type ResumeRefusal =
  | "resume_invalid"
  | "resume_model_mismatch"
  | "resume_patch_conflict"
  | "resume_patch_secret";

/**
 * The model whose signed reasoning (an Anthropic thinking signature, an OpenAI encrypted reasoning
 * item) the transcript holds and `model` is not: such a block is valid only for the model that
 * wrote it, so the conversation would not be what the model saw.
 */
function foreignReasoning(messages: AgentMessage[], model: Model): string | undefined {
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    const signed = message.content.some((part) => part.type === "thinking" && part.signature);
    if (signed && (message.provider !== model.provider || message.model !== model.id)) {
      return `${message.provider}:${message.model}`;
    }
  }
  return undefined;
}
