import { getOctokit } from "@actions/github";
import { afterEach, describe, expect, test } from "vitest";
import { upsertComment } from "../src/action/comment.ts";
import { buildCommentBody, commentMarker } from "../src/action/comment-body.ts";
import { type FakeGitHub, type FakeGitHubOptions, startFakeGitHub } from "./fake-github/server.ts";

let fake: FakeGitHub | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const target = { owner: "octo-org", repo: "octo-repo", issueNumber: 42 };

describe("upsertComment", () => {
  test("creates the comment when none carries the marker, then updates that same comment", async () => {
    fake = await startFakeGitHub({ comments: [{ issueNumber: 42, body: "LGTM" }] });
    const octokit = getOctokit("t0k3n", { baseUrl: fake.url });
    const marker = commentMarker("fix-lint");

    const first = await upsertComment(octokit, { ...target, marker, body: `${marker}\nrun 1` });
    expect(first).toMatchObject({ ok: true, value: { action: "created" } });
    const second = await upsertComment(octokit, { ...target, marker, body: `${marker}\nrun 2` });
    expect(second).toMatchObject({ ok: true, value: { action: "updated" } });

    const mine = fake.comments.filter((c) => c.body.includes(marker));
    expect(mine).toHaveLength(1);
    expect(mine[0]?.body).toBe(`${marker}\nrun 2`);
    expect(first.ok && second.ok && first.value.id === second.value.id).toBe(true);
    expect(first.ok && first.value.url).toBe(mine[0]?.html_url);
  });

  test("finds the marked comment on the third page of a long thread", async () => {
    const marker = commentMarker("fix-lint");
    const comments: NonNullable<FakeGitHubOptions["comments"]> = Array.from({ length: 250 }, (_, i) => ({
      issueNumber: 42,
      body: `chatter ${i}`,
    }));
    comments.push({ issueNumber: 42, body: `${marker}\nold`, login: "github-actions[bot]" });
    fake = await startFakeGitHub({ comments });
    const octokit = getOctokit("t0k3n", { baseUrl: fake.url });

    const outcome = await upsertComment(octokit, { ...target, marker, body: `${marker}\nnew` });

    expect(outcome).toMatchObject({ ok: true, value: { action: "updated" } });
    const pages = fake.requests
      .filter((r) => r.method === "GET" && r.path.endsWith("/comments"))
      .map((r) => r.query.page ?? "1");
    expect(pages).toEqual(["1", "2", "3"]);
    expect(fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/comments"))).toHaveLength(0);
    expect(fake.comments.at(-1)?.body).toBe(`${marker}\nnew`);
  });

  test("leaves another task's comment alone and skips an update when nothing changed", async () => {
    const other = commentMarker("review");
    fake = await startFakeGitHub({ comments: [{ issueNumber: 42, body: `${other}\nreview body` }] });
    const octokit = getOctokit("t0k3n", { baseUrl: fake.url });
    const marker = commentMarker("fix-lint");

    await upsertComment(octokit, { ...target, marker, body: `${marker}\nsame` });
    const again = await upsertComment(octokit, { ...target, marker, body: `${marker}\nsame` });

    expect(again).toMatchObject({ ok: true, value: { action: "unchanged" } });
    expect(fake.comments.map((c) => c.body)).toEqual([`${other}\nreview body`, `${marker}\nsame`]);
    expect(fake.requests.filter((r) => r.method === "PATCH")).toHaveLength(0);
  });

  test("a comment that only quotes the marker, or one a user wrote, is never taken for this task's", async () => {
    const marker = commentMarker("fix-lint");
    fake = await startFakeGitHub({
      comments: [
        {
          issueNumber: 42,
          body: `${commentMarker("review")}\n> quoted: ${marker}`,
          login: "github-actions[bot]",
        },
        { issueNumber: 42, body: `${marker}\nplanted`, login: "mallory" },
      ],
    });
    const octokit = getOctokit("t0k3n", { baseUrl: fake.url });

    const outcome = await upsertComment(octokit, { ...target, marker, body: `${marker}\nmine` });

    expect(outcome).toMatchObject({ ok: true, value: { action: "created" } });
    expect(fake.requests.filter((r) => r.method === "PATCH")).toHaveLength(0);
    expect(fake.comments.map((c) => c.body)).toEqual([
      `${commentMarker("review")}\n> quoted: ${marker}`,
      `${marker}\nplanted`,
      `${marker}\nmine`,
    ]);
  });

  test("with a personal token, only the comment of the login the token belongs to is updated", async () => {
    const marker = commentMarker("fix-lint");
    fake = await startFakeGitHub({
      tokenLogin: "ci-user",
      comments: [
        { issueNumber: 42, body: `${marker}\nby another bot`, login: "other-app[bot]" },
        { issueNumber: 42, body: `${marker}\nold`, login: "ci-user" },
      ],
    });
    const octokit = getOctokit("t0k3n", { baseUrl: fake.url });

    const outcome = await upsertComment(octokit, { ...target, marker, body: `${marker}\nnew` });

    expect(outcome).toMatchObject({ ok: true, value: { action: "updated" } });
    expect(fake.comments.map((c) => c.body)).toEqual([`${marker}\nby another bot`, `${marker}\nnew`]);
  });

  test("a body over GitHub's limit is cut by buildCommentBody and accepted", async () => {
    fake = await startFakeGitHub();
    const octokit = getOctokit("t0k3n", { baseUrl: fake.url });
    const summary = `## fix-lint\n\n<details><summary>patch</summary>\n\n\`\`\`diff\n${"+ a line\n".repeat(10_000)}\`\`\`\n</details>\n`;
    const body = buildCommentBody(summary, {
      taskName: "fix-lint",
      runUrl: "https://github.com/o/r/actions/runs/1",
    });

    const outcome = await upsertComment(octokit, { ...target, marker: commentMarker("fix-lint"), body });

    expect(outcome).toMatchObject({ ok: true, value: { action: "created" } });
    expect(fake.comments[0]?.body.length).toBeLessThanOrEqual(65_536);
  });

  test("createIfMissing: false updates an existing comment but never creates one", async () => {
    const marker = commentMarker("fix-lint");
    fake = await startFakeGitHub();
    const octokit = getOctokit("t0k3n", { baseUrl: fake.url });

    const absent = await upsertComment(octokit, {
      ...target,
      marker,
      body: `${marker}\nempty`,
      createIfMissing: false,
    });
    expect(absent).toEqual({ ok: true, value: { action: "absent", id: 0, url: "" } });
    expect(fake.comments).toEqual([]);

    await upsertComment(octokit, { ...target, marker, body: `${marker}\nwith a patch` });
    const updated = await upsertComment(octokit, {
      ...target,
      marker,
      body: `${marker}\nempty`,
      createIfMissing: false,
    });
    expect(updated).toMatchObject({ ok: true, value: { action: "updated" } });
    expect(fake.comments.map((c) => c.body)).toEqual([`${marker}\nempty`]);
  });
});
