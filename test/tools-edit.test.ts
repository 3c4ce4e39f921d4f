import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createEditTool } from "../src/tools/index.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

const source = [
  "function greet(name) {",
  '  const message = "hello " + name;',
  "  return message;",
  "}",
  "",
].join("\n");

describe("edit", () => {
  test("replaces exact text and returns diff, patch and first changed line", async () => {
    const root = await makeWorkspace({ "g.js": source });
    const result = await run(createEditTool(root), {
      path: "g.js",
      edits: [{ oldText: "  return message;", newText: "  return message.trim();" }],
    });
    expect(await readFile(join(root, "g.js"), "utf8")).toBe(
      source.replace("return message;", "return message.trim();"),
    );
    expect(result.details.firstChangedLine).toBe(3);
    expect(result.details.diff).toBe(
      [
        " 1 function greet(name) {",
        ' 2   const message = "hello " + name;',
        "-3   return message;",
        "+3   return message.trim();",
        " 4 }",
      ].join("\n"),
    );
    expect(result.details.patch).toContain("--- a/g.js\n+++ b/g.js\n@@ -1,4 +1,4 @@\n");
    expect(textOf(result)).toMatch(/^Edited g\.js: 1 replacement\.\n/);
  });

  test("the patch applies with git apply", async () => {
    const root = await makeWorkspace({ "g.js": source });
    const result = await run(createEditTool(root), {
      path: "g.js",
      edits: [{ oldText: "hello", newText: "hi" }],
    });
    const copy = await makeWorkspace({ "g.js": source, "edit.patch": result.details.patch });
    execFileSync("git", ["apply", "edit.patch"], { cwd: copy });
    expect(await readFile(join(copy, "g.js"), "utf8")).toBe(await readFile(join(root, "g.js"), "utf8"));
  });

  test("several edits apply in order, all or none", async () => {
    const root = await makeWorkspace({ "g.js": source });
    const tool = createEditTool(root);
    await expect(
      run(tool, {
        path: "g.js",
        edits: [
          { oldText: "greet", newText: "welcome" },
          { oldText: "does not exist anywhere", newText: "x" },
        ],
      }),
    ).rejects.toThrow("Edit 2 of 2: oldText was not found in g.js");
    expect(await readFile(join(root, "g.js"), "utf8")).toBe(source);
    const result = await run(tool, {
      path: "g.js",
      edits: [
        { oldText: "greet", newText: "welcome" },
        { oldText: "return message;", newText: "return message + '!';" },
      ],
    });
    expect(result.details.replacements).toBe(2);
    expect(await readFile(join(root, "g.js"), "utf8")).toContain("function welcome(name)");
  });

  test("several matches are an error naming the lines, unless replaceAll", async () => {
    const root = await makeWorkspace({ "d.txt": "foo\nbar\nfoo\n" });
    const tool = createEditTool(root);
    await expect(run(tool, { path: "d.txt", edits: [{ oldText: "foo", newText: "baz" }] })).rejects.toThrow(
      "The edit: oldText matches 2 places in d.txt, at lines 1, 3. Include more surrounding lines to make it unique, or set replaceAll: true. Nothing was changed.",
    );
    const result = await run(tool, {
      path: "d.txt",
      edits: [{ oldText: "foo", newText: "baz", replaceAll: true }],
    });
    expect(result.details.replacements).toBe(2);
    expect(await readFile(join(root, "d.txt"), "utf8")).toBe("baz\nbar\nbaz\n");
  });

  test("no match shows the nearest candidates", async () => {
    const root = await makeWorkspace({ "g.js": source });
    const message = await run(createEditTool(root), {
      path: "g.js",
      edits: [{ oldText: "  return mesage;\n}", newText: "x" }],
    }).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(message).toContain(
      "The edit: oldText was not found in g.js, not even ignoring whitespace and quote style.",
    );
    expect(message).toContain("Nearest candidates:\n--- line 3\n3\t  return message;\n4\t}");
  });

  test("tolerates wrong indentation, trailing spaces and curly quotes", async () => {
    const root = await makeWorkspace({ "g.js": source });
    const result = await run(createEditTool(root), {
      path: "g.js",
      edits: [
        {
          oldText: "const message = “hello ” + name;   \n    return message;",
          newText: "return greeting(name);",
        },
      ],
    });
    expect(result.details.fuzzyEdits).toEqual([0]);
    expect(await readFile(join(root, "g.js"), "utf8")).toBe(
      "function greet(name) {\n  return greeting(name);\n}\n",
    );
    expect(textOf(result)).toContain("(matched after normalizing whitespace/quotes)");
  });

  test("preserves CRLF line endings and a BOM", async () => {
    const root = await makeWorkspace({ "w.txt": "\uFEFFone\r\ntwo\r\nthree\r\n" });
    const result = await run(createEditTool(root), {
      path: "w.txt",
      edits: [{ oldText: "two\nthree", newText: "2\n3" }],
    });
    expect(await readFile(join(root, "w.txt"), "utf8")).toBe("\uFEFFone\r\n2\r\n3\r\n");
    expect(result.details.firstChangedLine).toBe(2);
  });

  test("accepts the single-edit form through prepareArguments", () => {
    const tool = createEditTool("/tmp");
    expect(tool.prepareArguments?.({ path: "a", oldText: "x", newText: "y" })).toEqual({
      path: "a",
      edits: [{ oldText: "x", newText: "y" }],
    });
  });

  test("refuses protected paths", async () => {
    const root = await makeWorkspace({ ".git/config": "[core]\n" });
    const tool = createEditTool(root, { protectedPaths: [".git/**"] });
    await expect(
      run(tool, { path: ".git/config", edits: [{ oldText: "core", newText: "x" }] }),
    ).rejects.toThrow('".git/config" is protected (matches ".git/**"); it cannot be edited.');
  });

  test("an edit deep in a long file numbers its diff from the file's start", async () => {
    const long = `${Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    const root = await makeWorkspace({ "long.txt": long });
    const result = await run(createEditTool(root), {
      path: "long.txt",
      edits: [{ oldText: "line 150\n", newText: "line 150 changed\nline 150b\n" }],
    });
    expect(result.details.firstChangedLine).toBe(150);
    expect(result.details.diff).toBe(
      [
        " 147 line 147",
        " 148 line 148",
        " 149 line 149",
        "-150 line 150",
        "+150 line 150 changed",
        "+151 line 150b",
        " 152 line 151",
        " 153 line 152",
        " 154 line 153",
      ].join("\n"),
    );
    expect(result.details.patch).toContain("@@ -147,7 +147,8 @@");
    const copy = await makeWorkspace({ "long.txt": long, "p.patch": result.details.patch });
    execFileSync("git", ["apply", "p.patch"], { cwd: copy });
    expect(await readFile(join(copy, "long.txt"), "utf8")).toBe(
      await readFile(join(root, "long.txt"), "utf8"),
    );
  });

  test("a multi-line edit keeps CRLF in a CRLF file on the exact path too, and keeps non-UTF-8 bytes", async () => {
    const root = await makeWorkspace({
      "w.txt": Buffer.concat([Buffer.from("a\r\nb\r\n"), Buffer.from([0xff, 0x0d, 0x0a])]),
    });
    await run(createEditTool(root), { path: "w.txt", edits: [{ oldText: "a\nb", newText: "x\ny\nz" }] });
    expect(await readFile(join(root, "w.txt"))).toEqual(
      Buffer.concat([Buffer.from("x\r\ny\r\nz\r\n"), Buffer.from([0xff, 0x0d, 0x0a])]),
    );
  });
});
