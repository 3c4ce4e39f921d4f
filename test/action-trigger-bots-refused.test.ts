/** Bots do not trigger runs unless listed, and a `[bot]` login alone earns nothing. */
import { describe, expect, test } from "vitest";
import {
  checkBots,
  type EventActor,
  eventActors,
  isTrustedTrigger,
  parseAllowedBots,
  triggerAuthors,
} from "../src/action/trigger-trust.ts";

const user = (login: string): EventActor => ({ login, type: "User", role: "sender" });
const bot = (login: string): EventActor => ({ login, type: "Bot", role: "sender" });

describe("bots and trust", () => {
  test("allowed-bots: commas or newlines, case and a trailing [bot] ignored", () => {
    expect(parseAllowedBots("Dependabot[bot], renovate\n\n  my-app  ")).toEqual([
      "dependabot",
      "renovate",
      "my-app",
    ]);
    expect(parseAllowedBots("")).toEqual([]);
  });

  test("a human passes, an unlisted bot is refused", () => {
    expect(checkBots([user("octocat")], [])).toEqual({ allowed: true, listedBots: [], message: "" });
    const refused = checkBots([user("octocat"), bot("dependabot[bot]")], ["renovate"]);
    expect(refused.allowed).toBe(false);
    expect(refused.message).toBe(
      "the sender @dependabot[bot] is a bot not listed in 'allowed-bots': not running",
    );
  });

  test("a listed bot passes; '*' lists every bot", () => {
    expect(checkBots([bot("dependabot[bot]")], ["dependabot"])).toMatchObject({
      allowed: true,
      listedBots: ["dependabot[bot]"],
    });
    expect(checkBots([bot("anything[bot]")], ["*"]).allowed).toBe(true);
  });

  test("a Bot account without the [bot] suffix is still a bot", () => {
    expect(checkBots([bot("ci-app")], []).allowed).toBe(false);
  });

  test("a listed name on an account that is not of type Bot is refused", () => {
    const check = checkBots([{ login: "renovate[bot]", type: "User", role: "comment author" }], ["renovate"]);
    expect(check.allowed).toBe(false);
    expect(check.message).toContain('its account type is "User", not "Bot"');
  });

  test("the actors of a comment event: sender and comment author, once each", () => {
    const payload = {
      sender: { login: "a", type: "User" },
      comment: { user: { login: "b[bot]", type: "Bot" } },
    };
    expect(eventActors(payload)).toEqual([
      { login: "a", type: "User", role: "sender" },
      { login: "b[bot]", type: "Bot", role: "comment author" },
    ]);
    expect(
      eventActors({ sender: { login: "a", type: "User" }, comment: { user: { login: "a" } } }),
    ).toHaveLength(1);
    expect(eventActors("nonsense")).toEqual([]);
  });

  test.for([
    ["push", undefined, true],
    ["workflow_dispatch", undefined, true],
    ["pull_request", false, true],
    ["pull_request", true, false],
    ["pull_request", undefined, false],
    ["pull_request_target", false, false],
    ["issue_comment", undefined, false],
    ["issues", undefined, false],
    ["workflow_run", undefined, false],
    ["commit_comment", undefined, false],
    ["discussion_comment", undefined, false],
    ["pull_request_review", false, false],
    ["an_event_from_the_future", undefined, false],
  ] as const)("isTrustedTrigger(%s, fromFork %s) is %s", ([event, fromFork, expected]) => {
    expect(isTrustedTrigger(event, fromFork)).toBe(expected);
  });

  const u = (login: string) => ({ login, type: "User" });
  test.for([
    [
      "a comment (issue, commit, discussion, review comment)",
      { comment: { user: u("c") }, issue: { user: u("i") } },
      ["c:comment author"],
    ],
    ["a review", { review: { user: u("r") }, pull_request: { user: u("p") } }, ["r:review author"]],
    ["a discussion without a comment", { discussion: { user: u("d") } }, ["d:discussion author"]],
    [
      "a comment on a discussion: the comment's author",
      { comment: { user: u("c") }, discussion: { user: u("d") } },
      ["c:comment author"],
    ],
    ["a comment without an author", { comment: { body: "x" } }, [":comment author"]],
    ["a push: nobody", { pusher: u("p"), sender: u("p") }, []],
  ] as [string, unknown, string[]][])("the authors of the triggering text: %s", ([, payload, expected]) => {
    expect(triggerAuthors(payload).map((a) => `${a.login}:${a.role}`)).toEqual(expected);
  });
});
