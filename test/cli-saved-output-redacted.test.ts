/**
 * A cut command's full output is saved as the command wrote it (tool-output/), and keeps no secret
 * once the run has ended, whether the command printed it or a process it left behind wrote it
 * later: the look the runner takes as the command ends (src/run/saved-output-looks.ts) does not
 * spare the finish phase's redaction a file that changed after it. Through the built CLI.
 */
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runScriptedCli } from "./helpers/scripted-cli.ts";
import { trustWorkspace } from "./helpers/trust.ts";

const SECRET = "saved-output-secret-8f3a91c2";
const TASK = "model: anthropic:claude-sonnet-4-5\nprompt: run it\ntools: [bash]\n";
const ENV = { DEPLOY_TOKEN: SECRET };
const bash = (command: string) => ({ tool_calls: [{ name: "bash", arguments: { command } }] });

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function savedOutputs(outDir: string): Promise<string[]> {
  const dir = path.join(outDir, "tool-output");
  const names = (await readdir(dir)).filter((name) => !name.startsWith("."));
  return Promise.all(names.map((name) => readFile(path.join(dir, name), "utf8")));
}

describe("saved outputs through the built CLI", () => {
  test("printed by the command: redacted in the saved file", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    dirs.push(dir);
    const run = await runScriptedCli(
      dir,
      TASK,
      [bash(`seq 1 100000; echo "key ${SECRET}"`), { text: "done" }],
      { env: ENV },
    );
    expect(run.code, run.stderr).toBe(0);
    const [saved] = await savedOutputs(run.outDir);
    expect(saved).toContain("\n99999\n100000\nkey ***\n");
    expect(saved).not.toContain(SECRET);
  });

  // Without the sandbox: inside it the outputs folder is read-only. (A process the command left
  // that appends to its output is cut back by the output guard; a rewrite in place is not.)
  test("without the sandbox, rewritten in place by a later command: redacted too", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    dirs.push(dir);
    const rewrite = `f=$(ls .agent-run/tool-output/*call_1_*); chmod u+w "$f"; printf '${SECRET}\\n' | dd of="$f" conv=notrunc 2>/dev/null`;
    const run = await runScriptedCli(
      dir,
      `${TASK}sandbox: off\n`,
      [bash("seq 1 100000"), bash(rewrite), { text: "done" }],
      { env: ENV },
    );
    expect(run.code, run.stderr).toBe(0);
    const [saved] = await savedOutputs(run.outDir);
    expect(saved?.startsWith("***\n")).toBe(true);
    expect(saved).toContain("\n100000\n");
    expect(saved).not.toContain(SECRET);
  });

  // Past WORKER_WARM_BYTES while it runs, the output is looked through in the bundle's worker
  // (dist/worker/secret-look.cjs; NODE_DEBUG=worker has Node say when one is made).
  test("a big output printed with a secret at its end: the worker looks, the file is redacted", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    dirs.push(dir);
    const run = await runScriptedCli(
      dir,
      TASK,
      [bash(`seq 1 1000000; sleep 0.1; echo "key ${SECRET}"`), { text: "done" }],
      { env: { ...ENV, NODE_DEBUG: "worker" } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/create new worker \S*worker[/\\]secret-look\.cjs/);
    const [saved] = await savedOutputs(run.outDir);
    expect(saved).toContain("\n999999\n1000000\nkey ***\n");
    expect(saved).not.toContain(SECRET);
  });

  test("without the sandbox, a big output the worker found clean, rewritten by a later command: redacted", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    dirs.push(dir);
    const rewrite = `f=$(ls .agent-run/tool-output/*call_1_*); chmod u+w "$f"; printf '${SECRET}\\n' | dd of="$f" conv=notrunc 2>/dev/null`;
    const run = await runScriptedCli(
      dir,
      `${TASK}sandbox: off\n`,
      [bash("seq 1 1000000; sleep 0.1"), bash(rewrite), { text: "done" }],
      { env: { ...ENV, NODE_DEBUG: "worker" } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/create new worker \S*worker[/\\]secret-look\.cjs/);
    const [saved] = await savedOutputs(run.outDir);
    expect(saved?.startsWith("***\n")).toBe(true);
    expect(saved).toContain("\n1000000\n");
    expect(saved).not.toContain(SECRET);
  });

  test("holding no secret: left as the command wrote it", async () => {
    const dir = await trustWorkspace({ "a.txt": "a\n" }, { git: true });
    dirs.push(dir);
    const run = await runScriptedCli(dir, TASK, [bash("seq 1 100000"), { text: "done" }], { env: ENV });
    expect(run.code, run.stderr).toBe(0);
    const [saved] = await savedOutputs(run.outDir);
    expect(saved).toBe(`${Array.from({ length: 100_000 }, (_, i) => i + 1).join("\n")}\n`);
  });
});
