/**
 * A single exact edit done in one step (`FileOperations.editExact`), in the runner's process and
 * in the run's bubblewrap session: the same file and the same words as the general path (open,
 * read, replace), and nothing written whenever the step is not taken, so the general path that
 * follows starts from the file as it was. In the session, edits and windows too large for the
 * protocol's headers take the general path, and the session goes on answering.
 */
import { link, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ALWAYS_PROTECTED } from "../src/run/build-tools.ts";
import { createEditTool, createLocalFileOperations, type FileOperations } from "../src/tools/index.ts";
import { runnerSandbox } from "./helpers/run-sandbox.ts";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { makeWorkspace, run } from "./tools-support.ts";

const TASK =
  "model: anthropic:claude-sonnet-4-5\nprompt: files\ntools: [read, write, edit]\nsandbox: required\n";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const FILES = {
  "main.txt": "one\ntwo\nthree\n",
  "crlf.txt": "\uFEFFalpha\r\nbeta\r\ngamma\r\n",
  "twice.txt": "x = 1\nx = 1\n",
  "dir/inner.txt": "inner\n",
};

/** Where the operations act: the runner's process, or the run's session when bubblewrap runs. */
const PLACES: {
  name: string;
  skip: boolean;
  /** The largest file edited in one step. */
  oneStepBytes: number;
  files: (extra?: Record<string, string>) => Promise<Place>;
}[] = [
  {
    name: "the runner's process",
    skip: false,
    oneStepBytes: 4 * 1024 * 1024,
    files: async (extra = {}) => {
      const dir = await makeWorkspace({ ...FILES, ...extra });
      return { dir, operations: createLocalFileOperations(dir) };
    },
  },
  {
    name: "the sandbox session",
    skip: NO_SANDBOX,
    oneStepBytes: 16 * 1024 * 1024,
    files: async (extra = {}) => {
      const { dir, sandbox } = await runnerSandbox(TASK, cleanups, {
        files: { "task.yml": TASK, ...FILES, ...extra },
        protectedGlobs: [...ALWAYS_PROTECTED, "task.yml", ".agent-run/**"],
      });
      if (!sandbox.fileOperations) throw new Error("no sandboxed file operations");
      return { dir, operations: sandbox.fileOperations };
    },
  },
];

interface Place {
  dir: string;
  operations: FileOperations;
}

function oneStep(operations: FileOperations) {
  const { editExact } = operations;
  if (!editExact) throw new Error("these operations have no editExact");
  return editExact;
}

for (const place of PLACES) {
  describe.skipIf(place.skip)(`one-step edits in ${place.name}`, () => {
    test("the file and the words are those of the general path", async () => {
      const { dir, operations } = await place.files();
      const general = await makeWorkspace(FILES);
      const cases = [
        { path: "main.txt", edits: [{ oldText: "two", newText: "2" }] },
        { path: "crlf.txt", edits: [{ oldText: "beta\ngamma", newText: "b\nc\nd" }] },
        { path: "twice.txt", edits: [{ oldText: "x = 1", newText: "x = 2", replaceAll: true }] },
        { path: "dir/inner.txt", edits: [{ oldText: "inner", newText: "outer" }] },
      ];
      for (const params of cases) {
        const { editExact: _, ...withoutOneStep } = createLocalFileOperations(general);
        const expected = await run(createEditTool(general, { operations: withoutOneStep }), params);
        const result = await run(createEditTool(dir, { operations }), params);
        expect(result).toEqual(expected);
        expect(await readFile(path.join(dir, params.path))).toEqual(
          await readFile(path.join(general, params.path)),
        );
      }
      expect(await readFile(path.join(dir, "crlf.txt"), "utf8")).toBe("\uFEFFalpha\r\nb\r\nc\r\nd\r\n");
    }, 30_000);

    test("a step not taken writes nothing and says so with undefined", async () => {
      const { dir, operations } = await place.files();
      await symlink("main.txt", path.join(dir, "link.txt"));
      await symlink("dir", path.join(dir, "dir-link"));
      await link(path.join(dir, "twice.txt"), path.join(dir, "twice-again.txt"));
      const editExact = oneStep(operations);
      const before = await readFile(path.join(dir, "main.txt"), "utf8");
      const refused = {
        missing: await editExact("nope.txt", { oldText: "a", newText: "b" }, { follow: false }),
        folder: await editExact("dir", { oldText: "a", newText: "b" }, { follow: false }),
        link: await editExact("link.txt", { oldText: "two", newText: "2" }, { follow: false }),
        throughLink: await editExact(
          "dir-link/inner.txt",
          { oldText: "inner", newText: "x" },
          { follow: false },
        ),
        hardLinked: await editExact("twice-again.txt", { oldText: "x", newText: "y", replaceAll: true }),
        noMatch: await editExact("main.txt", { oldText: "four", newText: "4" }),
        twoMatches: await editExact("twice.txt", { oldText: "x = 1", newText: "x = 2" }),
      };
      for (const [what, outcome] of Object.entries(refused)) expect({ what, outcome }).toEqual({ what });
      expect(await readFile(path.join(dir, "main.txt"), "utf8")).toBe(before);
      expect(await readFile(path.join(dir, "twice.txt"), "utf8")).toBe("x = 1\nx = 1\n");
      expect(await readFile(path.join(dir, "dir/inner.txt"), "utf8")).toBe("inner\n");
      // Followed when asked: the real location is what it answers.
      const followed = await editExact("link.txt", { oldText: "two", newText: "2" }, { follow: true });
      expect(followed).toMatchObject({ path: "main.txt", replacements: 1, lineOffset: 0 });
      expect(await readFile(path.join(dir, "main.txt"), "utf8")).toBe("one\n2\nthree\n");
    }, 30_000);

    test("a file larger than one step reads is left to the general path", async () => {
      // The runner's 4 MiB keeps each call short; the session's 16 MiB bounds what its server holds.
      const big = `${"x".repeat(place.oneStepBytes)}\nlast\n`;
      const { dir, operations } = await place.files({ "big.txt": big });
      expect(await oneStep(operations)("big.txt", { oldText: "last", newText: "final" })).toBeUndefined();
      expect(await readFile(path.join(dir, "big.txt"), "utf8")).toBe(big);
      await run(createEditTool(dir, { operations }), {
        path: "big.txt",
        edits: [{ oldText: "last", newText: "final" }],
      });
      expect((await readFile(path.join(dir, "big.txt"), "utf8")).endsWith("\nfinal\n")).toBe(true);
    }, 30_000);

    test("an edit through a link is made at the link's real location, by the general path", async () => {
      const { dir, operations } = await place.files();
      await mkdir(path.join(dir, "docs"));
      await symlink("../main.txt", path.join(dir, "docs/main.txt"));
      const result = await run(createEditTool(dir, { operations }), {
        path: "docs/main.txt",
        edits: [{ oldText: "three", newText: "3" }],
      });
      expect(result.details).toMatchObject({ path: "docs/main.txt", replacements: 1 });
      expect(await readFile(path.join(dir, "main.txt"), "utf8")).toBe("one\ntwo\n3\n");
    }, 30_000);
  });
}

describe.skipIf(NO_SANDBOX)("one-step edits too large for the session's headers", () => {
  test("a huge new text and a huge changed window take the general path; the session goes on", async () => {
    // A line of 2 Mi characters: its window is over the 1 Mi a header may carry.
    const wide = `${"w".repeat(2 * 1024 * 1024)} tail\n`;
    const { dir, operations } = await PLACES[1]!.files({ "wide.txt": wide });
    const editExact = oneStep(operations);
    expect(await editExact("wide.txt", { oldText: "tail", newText: "end" })).toBeUndefined();
    expect(await readFile(path.join(dir, "wide.txt"), "utf8")).toBe(wide);
    const edit = createEditTool(dir, { operations });
    await run(edit, { path: "wide.txt", edits: [{ oldText: "tail", newText: "end" }] });
    expect(await readFile(path.join(dir, "wide.txt"), "utf8")).toBe(`${"w".repeat(2 * 1024 * 1024)} end\n`);
    // 3 Mi control characters: JSON escapes each in 6 bytes, 18 MiB, over what the server reads.
    const control = "\u0001".repeat(3 * 1024 * 1024);
    expect(await editExact("main.txt", { oldText: "one", newText: control })).toBeUndefined();
    await run(edit, { path: "main.txt", edits: [{ oldText: "one", newText: control }] });
    expect(await readFile(path.join(dir, "main.txt"), "utf8")).toBe(`${control}\ntwo\nthree\n`);
    await writeFile(path.join(dir, "main.txt"), "small\n");
    expect(await editExact("main.txt", { oldText: "small", newText: "tiny" })).toMatchObject({
      path: "main.txt",
    });
  }, 30_000);
});
