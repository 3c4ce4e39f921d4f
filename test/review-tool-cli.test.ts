/**
 * `add_review_comment` through the built CLI (no pull request): comments are collected into
 * review.json and named in the summary; past `review.max_comments` calls are error results; bad
 * paths and empty bodies are refused without counting; the tool is offered only when the spec asks.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { tempWorkspace } from "./helpers/cli.ts";
import { resultText, runScriptedCli, toolEnds } from "./helpers/scripted-cli.ts";

const TASK = (review: string) => `name: review
model: anthropic:claude-sonnet-4-5
prompt: Review the code.
tools: [read]
${review}
`;

const comment = (path: string, line: number, body: string) => ({
  name: "add_review_comment",
  arguments: { path, line, body },
});

test("comments go to review.json and the summary; the N+1st call is an error", {
  timeout: 30_000,
}, async () => {
  const dir = await tempWorkspace({ "a.ts": "one\ntwo\nthree\n" });
  const run = await runScriptedCli(dir, TASK("review: { inline: true, max_comments: 2 }"), [
    {
      tool_calls: [
        comment("a.ts", 2, "Off by one here."),
        comment("../outside.ts", 1, "escapes"),
        comment("./a.ts", 3, "   "),
        comment("a.ts", 3, "Needs a test."),
        comment("a.ts", 1, "Third one, over the limit."),
      ],
    },
    { text: "Done." },
  ]);
  expect(run.code).toBe(0);
  const ends = toolEnds(run.events);
  expect(ends.map((end) => end.isError)).toEqual([false, true, true, false, true]);
  expect(resultText(ends[0]!)).toContain("Recorded review comment 1 of at most 2 on a.ts:2");
  expect(resultText(ends[1]!)).toContain("outside the workspace");
  expect(resultText(ends[4]!)).toContain("limit of 2 review comments is reached");
  const review = JSON.parse(await readFile(path.join(run.outDir, "review.json"), "utf8"));
  expect(review).toEqual({
    comments: [
      { path: "a.ts", line: 2, body: "Off by one here." },
      { path: "a.ts", line: 3, body: "Needs a test." },
    ],
    maxComments: 2,
    refused: 1,
  });
  expect(run.summary).toContain("The review has 2 comment(s) in review.json: a.ts:2, a.ts:3");
  expect(run.summary).toContain("1 more refused past review.max\\_comments (2)");
});

test("without review.inline the tool is not offered, and an old review.json is not taken for this run's", async () => {
  const dir = await tempWorkspace({ "a.ts": "x\n" });
  const run = await runScriptedCli(dir, TASK(""), [
    // Raw: a call to a tool the task does not offer, played as a model would send it.
    {
      tool_calls: [
        { name: "add_review_comment", arguments_raw: JSON.stringify(comment("a.ts", 1, "hi").arguments) },
      ],
    },
    { text: "Done." },
  ]);
  expect(run.code).toBe(0);
  expect(resultText(toolEnds(run.events)[0]!)).toBe(
    'Tool "add_review_comment" does not exist. Available tools: read, give_up.',
  );
  expect(run.summary).not.toContain("review.json");

  await writeFile(
    path.join(run.outDir, "review.json"),
    '{"comments":[{"path":"old","line":1,"body":"stale"}]}',
  );
  const again = await runScriptedCli(dir, TASK("review: { inline: true }"), [{ text: "Nothing to say." }]);
  expect(again.code).toBe(0);
  const review = JSON.parse(await readFile(path.join(again.outDir, "review.json"), "utf8"));
  expect(review).toEqual({ comments: [], maxComments: 20, refused: 0 });
});

test("a token in a comment, at the start of one of its lines, is not in review.json", {
  timeout: 30_000,
}, async () => {
  const token = `ghp_${"Rv7".repeat(12)}`;
  const dir = await tempWorkspace({ "a.ts": "one\ntwo\n" });
  const run = await runScriptedCli(dir, TASK("review: { inline: true }"), [
    { tool_calls: [comment("a.ts", 1, `This token is committed:\n${token}\n\t${token}`)] },
    { text: "Done." },
  ]);
  expect(run.code).toBe(0);
  const text = await readFile(path.join(run.outDir, "review.json"), "utf8");
  expect(text).not.toContain(token);
  expect(JSON.parse(text).comments[0].body).toBe("This token is committed:\n***\n\t***");
});
