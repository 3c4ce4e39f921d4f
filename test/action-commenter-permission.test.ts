import { getOctokit } from "@actions/github";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkCommenterPermission } from "../src/action/permissions.ts";
import { type FakeGitHub, type Role, startFakeGitHub } from "./fake-github/server.ts";

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub({
    roles: { ada: "admin", max: "maintain", wes: "write", tia: "triage", rex: "read", nob: "none" },
  });
});
afterAll(() => fake.close());

describe("checkCommenterPermission", () => {
  test.for<[string, Role, boolean]>([
    ["ada", "admin", true],
    ["max", "maintain", true],
    ["wes", "write", true],
    ["tia", "triage", false],
    ["rex", "read", false],
    ["nob", "none", false],
  ])("@%s with %s permission: allowed=%s", async ([username, role, allowed]) => {
    const check = await checkCommenterPermission(getOctokit("t", { baseUrl: fake.url }), {
      owner: "octo-org",
      repo: "octo-repo",
      username,
    });
    expect(check.allowed).toBe(allowed);
    expect(check.permission).toBe(role);
    expect(check.message).toContain(allowed ? ": running" : "a run needs write or admin: not running");
    expect(fake.requests.at(-1)?.path).toBe(`/repos/octo-org/octo-repo/collaborators/${username}/permission`);
  });

  test("an event without a commenter is refused without asking", async () => {
    const before = fake.requests.length;
    const check = await checkCommenterPermission(getOctokit("t", { baseUrl: fake.url }), {
      owner: "octo-org",
      repo: "octo-repo",
      username: "",
    });
    expect(check.allowed).toBe(false);
    expect(fake.requests.length).toBe(before);
  });
});
