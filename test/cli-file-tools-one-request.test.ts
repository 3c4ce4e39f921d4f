/**
 * Through the built CLI, with the sandbox on and off: a write of a plain path and a single exact
 * edit take one step each, and every case that step must not take (a link on the way, a protected
 * real location, a text matched only tolerantly) still ends as the careful path ends it: written at
 * the link's real location, refused, or edited after normalizing.
 */
import { readFile, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { NO_SANDBOX } from "./helpers/sandbox-available.ts";
import { resultText, runScriptedCli, toolEnds } from "./helpers/scripted-cli.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const TASK = (sandbox: string) =>
  `model: anthropic:claude-sonnet-4-5\nprompt: files\ntools: [read, write, edit]\nprotect: [ci/**]\nsandbox: ${sandbox}\n`;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const edit = (file: string, oldText: string, newText: string) => ({
  name: "edit",
  arguments: { path: file, edits: [{ oldText, newText }] },
});
const write = (file: string, content: string) => ({ name: "write", arguments: { path: file, content } });

for (const sandbox of ["required", "off"]) {
  describe.skipIf(sandbox === "required" && NO_SANDBOX)(
    `file tools in one step (CLI, sandbox: ${sandbox})`,
    () => {
      test("plain paths in one step; links, protected places and loose matches as before", async () => {
        const dir = await trustWorkspace(
          {
            "a.txt": "one\ntwo\n",
            "quotes.txt": "say(\u201chi\u201d)\n",
            "ci/deploy.yml": "steps: []\n",
            "src/notes.md": "notes\n",
          },
          { git: true },
        );
        dirs.push(dir);
        await symlink("ci/deploy.yml", path.join(dir, "deploy.yml"));
        await symlink("src", path.join(dir, "docs"));
        const run = await runScriptedCli(dir, TASK(sandbox), [
          {
            tool_calls: [
              edit("a.txt", "two", "2"),
              write("new.txt", "new\n"),
              edit("deploy.yml", "[]", "[evil]"),
              write("deploy.yml", "evil\n"),
              write("docs/added.md", "added\n"),
              edit("docs/notes.md", "notes", "more notes"),
              edit("quotes.txt", 'say("hi")', 'say("bye")'),
              write("ci/new.yml", "evil\n"),
            ],
          },
          { text: "done" },
        ]);
        expect(run.code).toBe(0);
        const texts = toolEnds(run.events).map(resultText);
        expect(texts[0]).toMatch(/^Edited a\.txt: 1 replacement\./);
        expect(texts[1]).toBe("Wrote 4 bytes to new.txt (new file).");
        expect(texts[2]).toContain('"deploy.yml" is protected (matches "ci/**"); it cannot be edited.');
        expect(texts[3]).toContain('"deploy.yml" is protected (matches "ci/**"); it cannot be written.');
        expect(texts[4]).toBe("Wrote 6 bytes to docs/added.md (new file).");
        expect(texts[5]).toMatch(/^Edited docs\/notes\.md: 1 replacement\./);
        expect(texts[6]).toMatch(/^Edited quotes\.txt: 1 replacement \(matched after normalizing/);
        expect(texts[7]).toContain('"ci/new.yml" is protected (matches "ci/**"); it cannot be written.');
        const read = (file: string) => readFile(path.join(dir, file), "utf8");
        expect(await read("a.txt")).toBe("one\n2\n");
        expect(await read("new.txt")).toBe("new\n");
        expect(await read("ci/deploy.yml")).toBe("steps: []\n");
        expect(await read("src/added.md")).toBe("added\n");
        expect(await read("src/notes.md")).toBe("more notes\n");
        expect(await read("quotes.txt")).toBe('say("bye")\n');
        await expect(read("ci/new.yml")).rejects.toThrow();
        const patch = await readFile(path.join(run.outDir, "patch.diff"), "utf8");
        for (const file of ["a.txt", "new.txt", "src/added.md", "src/notes.md", "quotes.txt"]) {
          expect(patch).toContain(`+++ b/${file}`);
        }
        expect(patch).not.toContain("ci/");
      }, 60_000);
    },
  );
}
