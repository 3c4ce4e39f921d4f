/**
 * Who and what triggered the run, and how far to trust it: bots are refused unless the workflow
 * lists them (`allowed-bots`), and a run is "trusted" (the sandbox may fall back to plain bash
 * with `sandbox: auto`) only for events whose content comes from people with write access.
 */

/** An account named by the event payload: its `sender`, or the author of a comment, review or discussion. */
export interface EventActor {
  /** "" when the payload names a comment, review or discussion but not its author's login. */
  login: string;
  /** GitHub's account type: "User", "Bot", "Organization"; "" when the payload does not say. */
  type: string;
  /** Where the payload names it, for messages: "sender", "comment author", "review author", "discussion author". */
  role: string;
}

/**
 * Events whose content can only come from people with write access (or from the repository's own
 * branches). Everything else (forks' pull requests, pull_request_target, comments, reviews,
 * issues, discussions, workflow_run, and any event not named here) carries text or code from
 * outside and is untrusted.
 */
export const TRUSTED_EVENTS: readonly string[] = ["push", "workflow_dispatch", "schedule", "merge_group"];

/**
 * The authors of the text that triggered the event, whatever the event is called: the comment's
 * (`issue_comment`, `commit_comment`, `discussion_comment`, `pull_request_review_comment`), the
 * review's (`pull_request_review`), or the discussion's for a `discussion` event (a payload with a
 * discussion and no comment). Read from the payload's shape, not the event's name, so an event type
 * this list does not know is checked the same way. A comment, review or discussion without an
 * author's login gives an actor with login "" (the permission check refuses it). The subject a
 * comment is on (the issue, pull request or discussion) is not its author's text and is not listed.
 */
export function triggerAuthors(payload: unknown): EventActor[] {
  if (!isRecord(payload)) return [];
  const authors: EventActor[] = [];
  const add = (item: unknown, role: string) => {
    if (!isRecord(item)) return;
    const user = item.user;
    const login = isRecord(user) && typeof user.login === "string" ? user.login : "";
    if (login !== "" && authors.some((a) => a.login === login)) return;
    const type = isRecord(user) && typeof user.type === "string" ? user.type : "";
    authors.push({ login, type, role });
  };
  add(payload.comment, "comment author");
  add(payload.review, "review author");
  if (!isRecord(payload.comment)) add(payload.discussion, "discussion author");
  return authors;
}

/** The accounts an event names: its sender and the authors of the text that triggered it (`triggerAuthors`). */
export function eventActors(payload: unknown): EventActor[] {
  if (!isRecord(payload)) return [];
  const actors: EventActor[] = [];
  const add = (actor: EventActor) => {
    if (actor.login === "" || actors.some((a) => a.login === actor.login)) return;
    actors.push(actor);
  };
  const sender = payload.sender;
  if (isRecord(sender) && typeof sender.login === "string") {
    add({ login: sender.login, type: typeof sender.type === "string" ? sender.type : "", role: "sender" });
  }
  for (const author of triggerAuthors(payload)) add(author);
  return actors;
}

/** A bot by GitHub's account type, or by a login ending in `[bot]` (which alone proves nothing either way). */
export function looksLikeBot(actor: EventActor): boolean {
  return actor.type === "Bot" || /\[bot\]$/i.test(actor.login);
}

/**
 * Parses the `allowed-bots` input: names separated by commas or newlines, compared without case
 * and without a trailing `[bot]` (`dependabot` and `dependabot[bot]` are the same entry). `*`
 * allows every bot. Default: none.
 */
export function parseAllowedBots(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((name) => botKey(name.trim()))
    .filter((name) => name !== "");
}

function botKey(login: string): string {
  return login.toLowerCase().replace(/\[bot\]$/, "");
}

export interface BotCheck {
  allowed: boolean;
  /** The listed bots among the actors (each with account type "Bot"). */
  listedBots: string[];
  /** One line for the log; "" when no actor is a bot. */
  message: string;
}

/**
 * Refuses an event any of whose actors is a bot, unless every such bot is listed in
 * `allowedBots` and GitHub says its account type is "Bot": a listed name on a "User" account
 * (someone who registered the name) is refused.
 */
export function checkBots(actors: EventActor[], allowedBots: readonly string[]): BotCheck {
  const listedBots: string[] = [];
  for (const actor of actors) {
    if (!looksLikeBot(actor)) continue;
    const listed = allowedBots.includes("*") || allowedBots.includes(botKey(actor.login));
    if (!listed) {
      return {
        allowed: false,
        listedBots,
        message: `the ${actor.role} @${actor.login} is a bot not listed in 'allowed-bots': not running`,
      };
    }
    if (actor.type !== "Bot") {
      return {
        allowed: false,
        listedBots,
        message: `the ${actor.role} @${actor.login} is listed in 'allowed-bots' but its account type is "${actor.type || "unknown"}", not "Bot": not running`,
      };
    }
    listedBots.push(actor.login);
  }
  const message =
    listedBots.length > 0
      ? `${listedBots.map((b) => `@${b}`).join(", ")} listed in 'allowed-bots': running`
      : "";
  return { allowed: true, listedBots, message };
}

/**
 * Whether the run counts as trusted for the runner (`trusted` of runTask): the event is one of
 * `TRUSTED_EVENTS`, or a `pull_request` whose head branch is in this repository.
 */
export function isTrustedTrigger(eventName: string, fromFork: boolean | undefined): boolean {
  if (TRUSTED_EVENTS.includes(eventName)) return true;
  return eventName === "pull_request" && fromFork === false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
