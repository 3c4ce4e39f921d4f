/**
 * Text from the event, offered to the prompt as task variables: `{{ vars.event_title }}`,
 * `{{ vars.event_body }}` (the pull request's or issue's title and body) and
 * `{{ vars.comment_body }}` (the triggering comment, or the review's body on pull_request_review). Anyone who can open a PR or comment wrote
 * it, so every value goes through the sanitizer first (hidden markup, invisible characters,
 * size). Each is "" when the event has none, so a spec can use them on any event.
 */

/** The names of the event variables, in the order above. */
export const EVENT_VAR_NAMES = ["event_title", "event_body", "comment_body"] as const;

export type EventVarName = (typeof EVENT_VAR_NAMES)[number];

/** The event variables of `payload`, each passed through `sanitize`. */
export function eventVars(
  payload: unknown,
  sanitize: (text: string) => string,
): Record<EventVarName, string> {
  const record = isRecord(payload) ? payload : {};
  const subject = isRecord(record.pull_request)
    ? record.pull_request
    : isRecord(record.issue)
      ? record.issue
      : {};
  const comment = isRecord(record.comment) ? record.comment : isRecord(record.review) ? record.review : {};
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? sanitize(value) : "");
  return {
    event_title: text(subject.title),
    event_body: text(subject.body),
    comment_body: text(comment.body),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
