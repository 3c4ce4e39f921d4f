import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { createFindTool, createGrepTool, createLsTool } from "../src/tools/index.ts";
import { createLineMatcher } from "../src/tools/regex-worker.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

const execFileAsync = promisify(execFile);

async function project() {
  return makeWorkspace({
    ".gitignore": "dist/\n*.log\n",
    "src/a.ts": "export const alpha = 1;\n// TODO: alpha\n",
    "src/b.test.ts": "test('alpha', () => {});\n",
    "src/nested/.gitignore": "secret.ts\n",
    "src/nested/secret.ts": "const alpha = 'hidden';\n",
    "src/nested/ok.ts": "const beta = (1+1);\n",
    "dist/a.js": "const alpha = 1;\n",
    "debug.log": "alpha\n",
    "README.md": "Alpha and alpha.\n",
    ".git/config": "alpha\n",
  });
}

describe("grep", () => {
  test("finds regex matches with path and line, honouring .gitignore (nested too)", async () => {
    const root = await project();
    const result = await run(createGrepTool(root), { pattern: "alph[a]" });
    expect(textOf(result)).toBe(
      [
        "README.md:1: Alpha and alpha.",
        "src/a.ts:1: export const alpha = 1;",
        "src/a.ts:2: // TODO: alpha",
        "src/b.test.ts:1: test('alpha', () => {});",
      ].join("\n"),
    );
    expect(result.details).toMatchObject({ matches: 4, filesWithMatches: 3, limitReached: false });
  });

  test("literal patterns, case-insensitivity, glob filter and path", async () => {
    const root = await project();
    const grep = createGrepTool(root);
    expect(textOf(await run(grep, { pattern: "(1+1)", literal: true }))).toBe(
      "src/nested/ok.ts:1: const beta = (1+1);",
    );
    expect(textOf(await run(grep, { pattern: "ALPHA", ignoreCase: true, glob: "*.md" }))).toBe(
      "README.md:1: Alpha and alpha.",
    );
    expect(textOf(await run(grep, { pattern: "alpha", path: "src", glob: "**/*.test.ts" }))).toBe(
      "src/b.test.ts:1: test('alpha', () => {});",
    );
  });

  test("stops at the match limit and says so", async () => {
    const root = await makeWorkspace({ "many.txt": "hit\n".repeat(50) });
    const result = await run(createGrepTool(root), { pattern: "hit", limit: 5 });
    expect(result.details).toMatchObject({ matches: 5, limitReached: true });
    expect(textOf(result)).toContain(
      "many.txt:5: hit\n\n[Stopped at 5 matches; narrow the pattern, path or glob, or raise limit.]",
    );
  });

  test("a runaway regex is stopped at its deadline and never blocks the process", async () => {
    const root = await makeWorkspace({ "long.txt": `ok\n${"a".repeat(28)}!\n` });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 20);
    const started = Date.now();
    try {
      await expect(run(createGrepTool(root, { regexTimeoutMs: 300 }), { pattern: "(a+)+$" })).rejects.toThrow(
        "The regular expression /(a+)+$/ took too long on long.txt (over 300 ms) and was stopped.",
      );
    } finally {
      clearInterval(ticker);
    }
    expect(Date.now() - started).toBeLessThan(1500);
    expect(ticks).toBeGreaterThan(5);
  });

  test("the deadline is per file, also when many files go to the worker at once", async () => {
    // Each file backtracks a while; the deadline is many times one file's time (a regex's first
    // runs are interpreted, slower), and the files together take twice the deadline.
    const slow = `${"a".repeat(20)}!`;
    /(a+)+$/.test(slow);
    const began = performance.now();
    /(a+)+$/.test(slow);
    const one = Math.max(1, performance.now() - began);
    const deadline = Math.max(600, Math.ceil(one * 30));
    const count = Math.ceil((deadline * 2) / one);
    const files: Record<string, string> = {};
    for (let i = 0; i < count; i++) files[`slow/f${String(i).padStart(4, "0")}.txt`] = `${slow}\n`;
    const root = await makeWorkspace(files);
    const started = performance.now();
    const result = await run(createGrepTool(root, { regexTimeoutMs: deadline }), { pattern: "(a+)+$" });
    expect(result.details).toMatchObject({ matches: 0, filesSearched: count });
    expect(performance.now() - started).toBeGreaterThan(deadline);
  });

  test("a runaway regex in the middle of a batch is stopped and names its file", async () => {
    const files: Record<string, string> = { "runaway/m.txt": `${"a".repeat(30)}!\n` };
    for (let i = 0; i < 40; i++) files[`runaway/${i < 20 ? "a" : "z"}${i}.txt`] = "aaa\n";
    const root = await makeWorkspace(files);
    const started = Date.now();
    await expect(run(createGrepTool(root, { regexTimeoutMs: 300 }), { pattern: "(a+)+$" })).rejects.toThrow(
      "took too long on runaway/m.txt (over 300 ms)",
    );
    expect(Date.now() - started).toBeLessThan(2000);
  });

  test("the limit and skipped files count the same across batches", async () => {
    const files: Record<string, string> = {};
    // 600 files (three batches): every file matches twice, every tenth is binary.
    for (let i = 0; i < 600; i++) {
      const name = `many/f${String(i).padStart(3, "0")}.txt`;
      files[name] = i % 10 === 5 ? "hit\0binary\n" : "hit one\nmiss\nhit two\n";
    }
    const root = await makeWorkspace(files);
    for (const literal of [false, true]) {
      const all = await run(createGrepTool(root), { pattern: "hit", literal, limit: 10_000 });
      expect(all.details).toMatchObject({
        matches: 1080,
        filesSearched: 540,
        filesSkipped: 60,
        limitReached: false,
      });
      // The limit falls inside the second batch, in the middle of a file.
      const some = await run(createGrepTool(root), { pattern: "hit", literal, limit: 401 });
      expect(some.details).toMatchObject({ matches: 401, filesWithMatches: 201, limitReached: true });
      expect(some.details.filesSearched).toBe(201);
      expect(some.details.filesSkipped).toBe(22);
      expect(textOf(some)).toContain("many/f222.txt:1: hit one");
      expect(textOf(some)).not.toContain("many/f222.txt:3:");
    }
  });

  test("a grep after one stopped at its deadline works, on a fresh worker", async () => {
    const root = await makeWorkspace({ "long.txt": `${"a".repeat(30)}!\n`, "ok.txt": "one hit\n" });
    const grep = createGrepTool(root, { regexTimeoutMs: 300 });
    await expect(run(grep, { pattern: "(a+)+$" })).rejects.toThrow("took too long on long.txt");
    expect(textOf(await run(grep, { pattern: "h[i]t" }))).toBe("ok.txt:1: one hit");
  });

  test("greps in parallel each get their own regex's hits", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`p/f${String(i).padStart(3, "0")}.txt`] = `cat ${i}\ndog ${i}\n`;
    const root = await makeWorkspace(files);
    const grep = createGrepTool(root);
    const patterns = ["^cat 1\\d$", "^dog 2\\d$", "^cat 29\\d$", "^dog \\d$"];
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all(patterns.map((pattern) => run(grep, { pattern })));
      expect(results.map((result) => result.details.matches)).toEqual([10, 10, 10, 10]);
      expect(textOf(results[0]!)).toContain("p/f010.txt:1: cat 10");
      expect(textOf(results[1]!)).toContain("p/f020.txt:2: dog 20");
      expect(textOf(results[2]!)).toContain("p/f299.txt:1: cat 299");
      expect(textOf(results[3]!)).toContain("p/f009.txt:2: dog 9");
    }
  });

  test("a matcher closed while its batch is in the worker leaves the next matcher no stale answer", async () => {
    const slow = createLineMatcher("(a+)+$", "", { timeoutMs: 10_000 });
    const pending = slow.match(
      Array.from({ length: 50 }, () => `${"a".repeat(20)}!`),
      100,
    );
    await slow.close();
    await expect(pending).resolves.toBe("aborted");
    const quick = createLineMatcher("^b", "");
    try {
      await expect(quick.match(["a\nb", "b"], 10)).resolves.toEqual([[1], [0]]);
    } finally {
      await quick.close();
    }
  });

  test("an answer that waits while this thread is busy past the deadline is no timeout", async () => {
    const matcher = createLineMatcher("(a+)+$", "", { timeoutMs: 100 });
    try {
      await matcher.match(["b"], 10);
      for (let round = 0; round < 5; round++) {
        // A few milliseconds of matching: the answer comes while this thread is busy for 300 ms in
        // the check phase, and the deadline's timer, due by then, runs before the answer is read.
        const pending = matcher.match([`${"a".repeat(16)}!`], 10);
        await new Promise<void>((resolve) =>
          setImmediate(() => {
            const until = Date.now() + 300;
            while (Date.now() < until) {}
            resolve();
          }),
        );
        await expect(pending).resolves.toEqual([[]]);
      }
    } finally {
      await matcher.close();
    }
  });

  test("an idle worker never holds the process: a script that greps ends by itself", async () => {
    const root = await makeWorkspace({ "a.txt": "hit\n" });
    const tools = new URL("../src/tools/index.ts", import.meta.url).href;
    const script = `
      const { createGrepTool, warmLineMatcher } = await import(${JSON.stringify(tools)});
      warmLineMatcher();
      const grep = createGrepTool(${JSON.stringify(root)});
      const context = { systemPrompt: "", messages: [], tools: [] };
      const result = await grep.execute("c", { pattern: "h.t" }, new AbortController().signal, () => {}, context);
      console.log(result.details.matches);
    `;
    const started = performance.now();
    const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "-e", script], {
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe("1");
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("context lines and the limit work the same with the regex in a worker", async () => {
    const root = await makeWorkspace({ "f.txt": "x1\nhit a\nx2\nx3\nx4\nhit b\nhit c\nx5\n" });
    const result = await run(createGrepTool(root), { pattern: "^hit", context: 1, limit: 2 });
    expect(textOf(result)).toBe(
      "f.txt-1- x1\nf.txt:2: hit a\nf.txt-3- x2\n--\nf.txt-5- x4\nf.txt:6: hit b\nf.txt-7- hit c\n\n[Stopped at 2 matches; narrow the pattern, path or glob, or raise limit.]",
    );
  });

  test("a bad regex is an error suggesting literal", async () => {
    const root = await project();
    await expect(run(createGrepTool(root), { pattern: "(" })).rejects.toThrow(
      "Use literal: true for plain text.",
    );
  });
});

describe("find", () => {
  test("matches globs, honours .gitignore, marks folders", async () => {
    const root = await project();
    const find = createFindTool(root);
    expect(textOf(await run(find, { pattern: "*.ts" }))).toBe("src/a.ts\nsrc/b.test.ts\nsrc/nested/ok.ts");
    expect(textOf(await run(find, { pattern: "src/**" }))).toBe(
      "src/\nsrc/a.ts\nsrc/b.test.ts\nsrc/nested/\nsrc/nested/.gitignore\nsrc/nested/ok.ts",
    );
    expect(textOf(await run(find, { pattern: "*.js" }))).toBe('No paths match "*.js" in the workspace.');
  });

  test("stops at the limit", async () => {
    const root = await project();
    const result = await run(createFindTool(root), { pattern: "**", limit: 2 });
    expect(result.details).toMatchObject({ count: 2, limitReached: true });
  });
});

describe("ls", () => {
  test("lists one folder sorted, dotfiles included, folders marked", async () => {
    const root = await project();
    const result = await run(createLsTool(root), {});
    expect(textOf(result)).toBe(
      [".git/", ".gitignore", "debug.log", "dist/", "README.md", "src/"].join("\n"),
    );
    expect(textOf(await run(createLsTool(root), { path: "src" }))).toBe("a.ts\nb.test.ts\nnested/");
  });

  test("sorts case-insensitively by code point, then by case", async () => {
    const root = await makeWorkspace({
      "b.txt": "",
      "A.md": "",
      a_b: "",
      "a-b": "",
      apple: "",
      "Zed/x": "",
      "B.txt": "",
    });
    expect(textOf(await run(createLsTool(root), {}))).toBe(
      ["a-b", "A.md", "a_b", "apple", "B.txt", "b.txt", "Zed/"].join("\n"),
    );
  });

  test("bounds the listing", async () => {
    const root = await project();
    const result = await run(createLsTool(root), { limit: 2 });
    expect(textOf(result)).toBe(".git/\n.gitignore\n\n[Showing 2 of 6 entries; raise limit to see more.]");
  });
});
