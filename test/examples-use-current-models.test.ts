import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, expect, test } from "vitest";
import { HELP } from "../src/cli/args.ts";
import { EXAMPLE_MODEL, EXAMPLE_OPENAI_MODEL, loadModelCatalog, modelInfo } from "../src/providers/index.ts";
import { SDK_MODELS, type SdkProvider } from "../src/providers/sdk-models.ts";

/**
 * Issue 16: no example, doc snippet or default names a model its SDK marks deprecated, and every
 * `anthropic:…` / `openai:…` reference names a model the SDKs or the catalog know (a typo in the
 * docs would teach it). A line that talks about deprecation itself may name one.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const PROVIDERS: SdkProvider[] = ["anthropic", "openai"];

beforeAll(() => loadModelCatalog());

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter(
      (e) => e.isFile() && !e.parentPath.includes("node_modules") && /\.(md|ya?ml|ts|js|json)$/.test(e.name),
    )
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

async function sources(): Promise<Array<{ name: string; text: string }>> {
  const names = ["README.md", "action.yml", ...(await filesUnder("docs")), ...(await filesUnder("examples"))];
  const files = await Promise.all(
    names.map(async (name) => ({ name, text: await readFile(path.join(ROOT, name), "utf8") })),
  );
  return [...files, { name: "agent-run --help", text: HELP }];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const ABOUT_DEPRECATION = /deprecat|end of life|end-of-life|retired/i;

test("the defaults shown are current models", () => {
  for (const ref of [EXAMPLE_MODEL, EXAMPLE_OPENAI_MODEL]) {
    const [provider, id] = ref.split(":") as [string, string];
    const info = modelInfo({ provider, id });
    expect(info.known, ref).toBe(true);
    expect(info.deprecated, ref).toBeUndefined();
    expect(info.pricing, ref).toBeDefined();
  }
});

test("no example, doc or help text names a deprecated model", async () => {
  const found: string[] = [];
  for (const { name, text } of await sources()) {
    text.split("\n").forEach((line, index) => {
      if (ABOUT_DEPRECATION.test(line)) return;
      for (const provider of PROVIDERS) {
        for (const id of Object.keys(SDK_MODELS[provider].deprecated)) {
          if (new RegExp(`(?<![\\w.-])${escapeRegExp(id)}(?![\\w.-])`).test(line))
            found.push(`${name}:${index + 1} ${id}`);
        }
      }
    });
  }
  expect(found).toEqual([]);
});

test("every provider:id they name is a model the SDKs or the catalog know", async () => {
  const unknown: string[] = [];
  for (const { name, text } of await sources()) {
    for (const match of text.matchAll(/(?<![\w-])(anthropic|openai):([a-z][\w.-]*[\w])/g)) {
      const [ref, provider, id] = match as unknown as [string, string, string];
      if (!modelInfo({ provider, id }).known) unknown.push(`${name}: ${ref}`);
    }
  }
  expect(unknown).toEqual([]);
});
