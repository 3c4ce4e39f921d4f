import { getOctokit } from "@actions/github";
import { afterEach, describe, expect, test } from "vitest";
import { upsertComment } from "../src/action/comment.ts";
import { commentMarker } from "../src/action/comment-body.ts";
import { checkCommenterPermission } from "../src/action/permissions.ts";
import { type FakeGitHub, startFakeGitHub } from "./fake-github/server.ts";

let fake: FakeGitHub | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const marker = commentMarker("fix-lint");
const target = { owner: "octo-org", repo: "octo-repo", issueNumber: 42, marker, body: `${marker}\nbody` };

describe("GitHub API failures are data, never exceptions", () => {
  test("403 from a read-only fork token: not posted, the message says why", async () => {
    fake = await startFakeGitHub({
      faults: [
        { method: "POST", path: "/comments", status: 403, message: "Resource not accessible by integration" },
      ],
    });
    const outcome = await upsertComment(getOctokit("t", { baseUrl: fake.url }), target);
    expect(outcome).toMatchObject({ ok: false, status: 403 });
    expect(!outcome.ok && outcome.message).toMatch(/HTTP 403.*forks GITHUB_TOKEN is read-only/);
    expect(fake.comments).toHaveLength(0);
  });

  test("404 on the list: not posted, points at the job's permissions", async () => {
    fake = await startFakeGitHub({ faults: [{ method: "GET", path: "/comments", status: 404 }] });
    const outcome = await upsertComment(getOctokit("t", { baseUrl: fake.url }), target);
    expect(outcome).toMatchObject({ ok: false, status: 404 });
    expect(!outcome.ok && outcome.message).toMatch(/permissions/);
  });

  test("429 with a short retry-after is waited out and retried", async () => {
    fake = await startFakeGitHub({
      faults: [{ method: "POST", path: "/comments", status: 429, retryAfter: 1, times: 1 }],
    });
    const waits: number[] = [];
    const outcome = await upsertComment(getOctokit("t", { baseUrl: fake.url }), {
      ...target,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(outcome).toMatchObject({ ok: true, value: { action: "created" } });
    expect(waits).toEqual([1000]);
    expect(fake.requests.filter((r) => r.method === "POST").map((r) => r.status)).toEqual([429, 201]);
  });

  test("429 asking for longer than the step waits gives up at once with a warning", async () => {
    fake = await startFakeGitHub({ faults: [{ path: "/comments", status: 429, retryAfter: 3600 }] });
    const waits: number[] = [];
    const outcome = await upsertComment(getOctokit("t", { baseUrl: fake.url }), {
      ...target,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(outcome).toMatchObject({ ok: false, status: 429 });
    expect(!outcome.ok && outcome.message).toMatch(/rate limited; GitHub asked to wait 3600 s/);
    expect(waits).toEqual([]);
  });

  test("403 secondary rate limit with retry-after is retried like a 429", async () => {
    fake = await startFakeGitHub({
      faults: [{ method: "GET", path: "/comments", status: 403, retryAfter: 2, times: 1 }],
    });
    const waits: number[] = [];
    const outcome = await upsertComment(getOctokit("t", { baseUrl: fake.url }), {
      ...target,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(outcome).toMatchObject({ ok: true, value: { action: "created" } });
    expect(waits).toEqual([2000]);
  });

  test("a failing permission check refuses (fails closed)", async () => {
    fake = await startFakeGitHub({
      roles: { maintainer: "admin" },
      faults: [{ path: "/permission", status: 403 }],
    });
    const check = await checkCommenterPermission(getOctokit("t", { baseUrl: fake.url }), {
      owner: "octo-org",
      repo: "octo-repo",
      username: "maintainer",
    });
    expect(check).toMatchObject({ allowed: false, permission: "unknown" });
    expect(check.message).toMatch(/HTTP 403.*fail closed/);
  });
});
