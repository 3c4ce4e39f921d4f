/**
 * The package as a user gets it: packed from what a clean clone holds (no lib/: `prepack` builds
 * it), installed offline into a new project, then used the way the README and docs/library.md
 * say: `npx agent-run`, and every TypeScript block of both compiled (tsc, strict) and run. The
 * blocks that call a model live reach the loopback mock LLM through ANTHROPIC_BASE_URL, as a
 * user's would reach the API.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT } from "./helpers/cli.ts";
import {
  type CommandResult,
  command,
  copyAsClone,
  fencedBlocks,
  installInto,
  linkDevTools,
  pack,
  packEnv,
} from "./helpers/pack-project.ts";
import { type MockLlm, type MockReply, startMockLlm } from "./mock-llm/server.ts";

const DOCS = ["README.md", "docs/library.md"];

let work = "";
let project = "";
let tarball = "";
let mock: MockLlm;
const timings: string[] = [];

/** A stateless model: a first turn calls a tool the request offers, a later one says it is done. */
function reply(body: Record<string, unknown>): MockReply {
  const messages = (body.messages ?? []) as { content: unknown }[];
  const last = JSON.stringify(messages.at(-1)?.content ?? "");
  if (last.includes("tool_result")) return { text: "Done." };
  const tools = ((body.tools ?? []) as { name: string }[]).map((tool) => tool.name);
  if (tools.includes("write")) {
    return { toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hello\n" } }] };
  }
  if (tools.includes("read")) return { toolCalls: [{ name: "read", arguments: { path: "package.json" } }] };
  return { text: "Done." };
}

/** The doc's files (`# task.yml` as a YAML block's first line), written into the project. */
async function writeDocFiles(): Promise<string[]> {
  const written: string[] = [];
  for (const doc of DOCS) {
    for (const block of fencedBlocks(await readFile(path.join(ROOT, doc), "utf8"), "yaml")) {
      const name = /^# ([\w.-]+\.ya?ml)\n/.exec(block)?.[1];
      if (!name) continue;
      await writeFile(path.join(project, name), block);
      written.push(name);
    }
  }
  return written;
}

function git(...args: string[]): Promise<CommandResult> {
  return command("git", args, { cwd: project });
}

/** The project as committed: what a snippet changed (hello.txt) is gone, the outputs kept aside. */
async function resetProject(): Promise<void> {
  await git("checkout", "--", ".");
  // The blocks and their tsconfig.json were written after the commit: they stay.
  await git("clean", "-fdq", "-e", "*.ts", "-e", "tsconfig.json");
}

function describeRun(result: CommandResult): string {
  return `exit ${result.code}\n${result.stdout}\n${result.stderr}`;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "agent-run-packaging-"));
  const clone = path.join(work, "clone");
  project = path.join(work, "my-project");
  let started = performance.now();
  await copyAsClone(clone);
  timings.push(`copy ${Math.round(performance.now() - started)} ms`);
  const packed = await pack(clone, work);
  tarball = packed.tarball;
  timings.push(`npm pack (prepack: build) ${Math.round(packed.ms)} ms`);
  timings.push(`npm ci --offline ${Math.round(await installInto(project, tarball))} ms`);
  await linkDevTools(project);
  await writeFile(path.join(project, ".gitignore"), "node_modules/\n.agent-run/\n");
  started = performance.now();
  await writeDocFiles();
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"],
  ]) {
    const result = await git(...args);
    if (result.code !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  }
  mock = await startMockLlm({ script: (_index, request) => reply(request.body) });
}, 600_000);

afterAll(async () => {
  // What packing and installing cost, to keep this file's share of the suite in view.
  console.log(`packaging: ${timings.join(", ")}`);
  await mock?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

test("the tarball holds lib/ (with types), the bundles, the schema and action.yml; every export resolves", async () => {
  const list = await command("tar", ["-tzf", tarball], { cwd: work });
  const files = new Set(list.stdout.split("\n").map((line) => line.replace(/^package\//, "")));
  for (const file of [
    "lib/index.js",
    "lib/index.d.ts",
    "lib/providers/model-supplement.json",
    "dist/cli.js",
    "dist/index.js",
    "bin/agent-run.js",
    "schema/task.schema.json",
    "action.yml",
  ]) {
    expect(files, file).toContain(file);
  }
  expect([...files].filter((file) => /^(src|test|scripts|bench)\//.test(file))).toEqual([]);
  const manifest = JSON.parse(
    await readFile(path.join(project, "node_modules", "agent-run", "package.json"), "utf8"),
  ) as { exports: Record<string, string | Record<string, string>>; bin: Record<string, string> };
  const targets = Object.values(manifest.exports).flatMap((target) =>
    typeof target === "string" ? [target] : Object.values(target),
  );
  for (const target of [...targets, ...Object.values(manifest.bin)]) {
    expect(files, target).toContain(target.replace(/^\.\//, ""));
  }
});

test("npx agent-run --version and a replay run work from the installed package", async () => {
  const env = packEnv();
  const version = await command("npx", ["agent-run", "--version"], { cwd: project, env });
  expect(version.code, describeRun(version)).toBe(0);
  const { version: expected } = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as {
    version: string;
  };
  expect(version.stdout).toContain(expected);

  const run = await command("npx", ["agent-run", "task.yml", "--replay", "session.yml"], {
    cwd: project,
    env,
  });
  expect(run.code, describeRun(run)).toBe(0);
  expect(await readFile(path.join(project, "hello.txt"), "utf8")).toBe("hello\n");
  expect(await readFile(path.join(project, ".agent-run", "patch.diff"), "utf8")).toContain("+hello");
  await resetProject();
}, 120_000);

describe("every TypeScript block of the README and docs/library.md", () => {
  const snippets: { name: string; file: string; live: boolean }[] = [];

  beforeAll(async () => {
    for (const doc of DOCS) {
      const blocks = fencedBlocks(await readFile(path.join(ROOT, doc), "utf8"), "ts");
      for (const [index, block] of blocks.entries()) {
        const file = path.join(project, `${path.basename(doc, ".md").toLowerCase()}-${index + 1}.ts`);
        await writeFile(file, block);
        // A block that runs a model without a replay must reach the mock, or it ran nothing.
        const code = block.replace(/\/\/.*$/gm, "");
        const live = /runTask\(|\.prompt\(/.test(code) && !/replay/i.test(code);
        snippets.push({ name: `${doc} block ${index + 1}`, file, live });
      }
    }
    // What a user's own strict project would say about them; no emit: Node runs them as they are.
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2023",
          lib: ["ES2023"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          strict: true,
          noUncheckedIndexedAccess: true,
          verbatimModuleSyntax: true,
          erasableSyntaxOnly: true,
          allowImportingTsExtensions: true,
          noEmit: true,
        },
        include: ["*.ts"],
      }),
    );
  });

  test("there are blocks: the README's two, and one per section of docs/library.md", () => {
    expect(snippets.filter((s) => s.name.startsWith("README")).length).toBeGreaterThanOrEqual(2);
    expect(snippets.filter((s) => s.name.startsWith("docs/")).length).toBeGreaterThanOrEqual(6);
    expect(snippets.filter((s) => s.live).length).toBeGreaterThanOrEqual(3);
  });

  test("they compile with tsc --strict against the installed package's types", async () => {
    const started = performance.now();
    const tsc = await command(path.join(ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], {
      cwd: project,
      env: packEnv(),
    });
    timings.push(`tsc ${snippets.length} blocks ${Math.round(performance.now() - started)} ms`);
    expect(tsc.code, describeRun(tsc)).toBe(0);
  }, 240_000);

  test("they run to exit 0, live ones against the mock LLM", async () => {
    const env = packEnv({ ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: mock.url });
    for (const snippet of snippets) {
      const requests = mock.requests.length;
      const run = await command(process.execPath, [snippet.file], { cwd: project, env });
      expect(run.code, `${snippet.name}: ${describeRun(run)}`).toBe(0);
      expect(run.stdout.trim(), `${snippet.name} printed nothing`).not.toBe("");
      expect(mock.requests.length > requests, `${snippet.name} called the model`).toBe(snippet.live);
      expect(`${run.stdout}${run.stderr}`, snippet.name).not.toMatch(/ERR_|TypeError|SyntaxError/);
      await resetProject();
    }
  }, 300_000);
});
