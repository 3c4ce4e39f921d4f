/**
 * The checks between an event and a run, in order: bots (`allowed-bots`), the permission of the
 * author of the triggering comment, review or discussion, the checkout on privileged PR events (`allow-untrusted-checkout`),
 * then the task spec and hook scripts from the trusted commit. Each refusal says why in one line.
 */
import path from "node:path";
import { errorText } from "../core/errors.ts";
import { type CheckoutCheck, checkCheckout, trustedCommit } from "./checkout-trust.ts";
import type { EventContext } from "./event-context.ts";
import type { EventTarget } from "./event-target.ts";
import type { ApiCallOptions, GitHubClient } from "./github-api.ts";
import type { ActionInputs } from "./inputs.ts";
import { checkCommenterPermission } from "./permissions.ts";
import { checkBots, eventActors, isTrustedTrigger, triggerAuthors } from "./trigger-trust.ts";
import { taskFromTrustedCommit } from "./trusted-spec.ts";

export type GateOutcome =
  | {
      run: true;
      /** The spec to run (a temp copy of the trusted commit's when the checkout's differs). */
      taskFile: string | undefined;
      /**
       * The workspace to run in: the `working-directory` input, else the trusted spec's `workdir`
       * resolved against the checkout's spec folder; undefined when the runner may resolve the
       * spec's own `workdir` (the spec runs in place).
       */
      cwd: string | undefined;
      /** Passed to the runner: with `sandbox: auto`, only trusted runs may fall back to plain bash. */
      trusted: boolean;
      /** Lines for the log (info). */
      notes: string[];
      /** Lines for the log (warnings). */
      warnings: string[];
    }
  | {
      run: false;
      /**
       * "skipped": someone who may not trigger a run did (a notice, exit 0);
       * "refused": the workflow's set-up is unsafe or unreadable (an error, exit 2).
       */
      kind: "skipped" | "refused";
      message: string;
    };

export interface GateOptions {
  inputs: ActionInputs;
  ctx: EventContext;
  target: EventTarget | undefined;
  env: NodeJS.ProcessEnv;
  /** The GitHub client, created on first use; undefined without a token. */
  client: () => Promise<GitHubClient | undefined>;
  apiOptions?: ApiCallOptions;
  /** The task spec as given (absolute), before any substitution. */
  taskFile: string | undefined;
  /** The `working-directory` input, absolute; undefined when not set (the spec's `workdir` applies). */
  agentDir: string | undefined;
}

/** Runs every check; never throws (problems with git, the API or the file system refuse the run). */
export async function passTrustGate(options: GateOptions): Promise<GateOutcome> {
  try {
    return await checkAll(options);
  } catch (error) {
    const reason = errorText(error);
    return { run: false, kind: "refused", message: `the trust checks failed (${reason}). Not running` };
  }
}

async function checkAll(options: GateOptions): Promise<GateOutcome> {
  const { inputs, ctx, target, env } = options;
  const notes: string[] = [];
  const warnings: string[] = [];

  const bots = checkBots(eventActors(ctx.payload), inputs.allowedBots);
  if (!bots.allowed) return { run: false, kind: "skipped", message: bots.message };
  if (bots.message) notes.push(bots.message);

  // Whoever wrote the comment, review or discussion that triggered the run must have write access,
  // on every event whose payload names one (unknown event types included).
  for (const author of triggerAuthors(ctx.payload)) {
    if (author.login !== "" && bots.listedBots.includes(author.login)) {
      // The permission API knows nothing of apps; listing the bot is the workflow's explicit grant.
      notes.push(`@${author.login} is a bot listed in 'allowed-bots': no permission check`);
      continue;
    }
    if (author.login === "") {
      return {
        run: false,
        kind: "skipped",
        message: `the event names no ${author.role}'s login; not running`,
      };
    }
    const github = await options.client();
    const check = github
      ? await checkCommenterPermission(github, {
          ...options.apiOptions,
          owner: ctx.owner,
          repo: ctx.repo,
          username: author.login,
        })
      : { allowed: false, message: `no github-token to check the ${author.role}'s permission; not running` };
    if (!check.allowed) return { run: false, kind: "skipped", message: check.message };
    notes.push(check.message);
  }

  const checkout: CheckoutCheck = await checkCheckout({
    eventName: ctx.eventName,
    payload: ctx.payload,
    env,
    dir: options.agentDir ?? ctx.workspace,
    allowUntrusted: inputs.allowUntrustedCheckout,
  });
  if (!checkout.allowed) return { run: false, kind: "refused", message: checkout.message };
  if (checkout.message) warnings.push(checkout.message);

  let taskFile = options.taskFile;
  let cwd = options.agentDir;
  const sha = trustedCommit(ctx.eventName, ctx.payload, env);
  if (taskFile !== undefined && sha !== undefined) {
    const trusted = await taskFromTrustedCommit({
      sha,
      taskFile,
      agentDir: options.agentDir,
      tempDir: env.RUNNER_TEMP,
    });
    if (!trusted.ok) return { run: false, kind: "refused", message: trusted.message };
    taskFile = trusted.taskFile;
    cwd = trusted.agentDir;
    const rel = path
      .relative(ctx.workspace, options.taskFile ?? "")
      .split(path.sep)
      .join("/");
    notes.push(
      trusted.replaced
        ? `the checkout's ${rel} differs from the trusted commit ${sha.slice(0, 12)}: running the trusted commit's version`
        : `${rel} matches the trusted commit ${sha.slice(0, 12)}`,
    );
    if (trusted.checkedScripts.length > 0) {
      notes.push(`hook scripts match the trusted commit: ${trusted.checkedScripts.join(", ")}`);
    }
  }

  return {
    run: true,
    taskFile,
    cwd,
    trusted: isTrustedTrigger(ctx.eventName, target?.fromFork),
    notes,
    warnings,
  };
}
