import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "./helpers/cli.ts";

/**
 * The one-way flow of ARCHITECTURE.md, checked on every import of src/ (static, `export … from`
 * and `import()`): a folder imports only folders of a lower layer. A new folder gets a layer here
 * and a line in ARCHITECTURE.md; an import that points up or sideways is a design change to make
 * on purpose, not by accident.
 */
const LAYERS: Record<string, number> = {
  core: 0,
  system: 1,
  providers: 2,
  tools: 2,
  output: 2,
  spec: 3,
  sandbox: 3,
  mcp: 4,
  hooks: 4,
  run: 5,
  render: 6,
  cli: 7,
  action: 7,
};

/** Files at the top of src/: the library's surface and the version, each with what it may import. */
const ROOT_FILES: Record<string, (target: string) => boolean> = {
  // The library offers every layer but the two front ends (bar the one pure function of action/).
  "index.ts": (target) => !/^(cli|action)\//.test(target) || target === "action/untrusted-text.ts",
  "version.ts": () => false,
};

const SRC = path.join(ROOT, "src");
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)"(\.{1,2}\/[^"]+)"/gm;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.relative(SRC, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"));
}

async function imports(file: string): Promise<string[]> {
  const text = await readFile(path.join(SRC, file), "utf8");
  return [...text.matchAll(IMPORT)].map((match) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1]!)),
  );
}

function allowed(from: string, target: string): boolean {
  const folder = from.split("/")[0]!;
  const rootRule = ROOT_FILES[from];
  if (rootRule) return target.startsWith("../") ? false : rootRule(target);
  const to = target.split("/")[0]!;
  if (to === folder) return true;
  if (!target.includes("/")) return target === "version.ts";
  return LAYERS[to] !== undefined && LAYERS[to]! < LAYERS[folder]!;
}

test("every folder of src/ has a layer", async () => {
  const folders = (await readdir(SRC, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  expect(folders.filter((name) => LAYERS[name] === undefined)).toEqual([]);
  const files = (await readdir(SRC, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  expect(files.filter((name) => !ROOT_FILES[name])).toEqual([]);
});

test("imports point down the layers only (ARCHITECTURE.md)", async () => {
  const wrong: string[] = [];
  for (const file of await sourceFiles(SRC)) {
    for (const target of await imports(file)) {
      if (!allowed(file, target)) wrong.push(`${file} -> ${target}`);
    }
  }
  expect(wrong).toEqual([]);
});
