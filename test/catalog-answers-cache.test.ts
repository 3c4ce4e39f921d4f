import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, expect, test, vi } from "vitest";
import catalogVersion from "../src/providers/catalog-version.json" with { type: "json" };
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { writeNoteThenDone } from "./helpers/mock-scripts.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * Issue 18: what a run needs of the model catalog (its model's price and context window, the
 * provider's ids) comes without compiling the catalog's 0.8 MB where it can: for the models the
 * SDKs list whose price has no date condition, from answers bundled with the build
 * (src/providers/catalog-answers.json); for others, from the user's cache folder, per catalog
 * version and day, once a run that day loaded the catalog. The answers are the catalog's own; a
 * cache that is broken or lacks the model is as if there were none.
 */
const SONNET = { provider: "anthropic", id: "claude-sonnet-5-5" };
/** A dated id: the catalog prices it (as claude-sonnet-5), the bundled answers do not name it. */
const DATED = { provider: "anthropic", id: "claude-sonnet-5-5-20260101" };
let cacheHome: string;
const saved = process.env.XDG_CACHE_HOME;
beforeAll(async () => {
  cacheHome = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-"));
});
afterAll(async () => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  await rm(cacheHome, { recursive: true, force: true });
});
beforeEach(() => {
  process.env.XDG_CACHE_HOME = cacheHome;
});

/** A fresh copy of the module, as a new process would have it. */
const fresh = () => {
  vi.resetModules();
  return import("../src/providers/catalog-source.ts");
};

test("src/providers/catalog-version.json names the installed catalog (the cache's name holds it)", async () => {
  // The package's exports hide its package.json: found above its main entry.
  const main = createRequire(import.meta.url).resolve("@pydantic/genai-prices");
  const dir = main.slice(0, main.lastIndexOf(`${path.sep}dist${path.sep}`));
  const installed = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")).version;
  expect(catalogVersion.version, "update src/providers/catalog-version.json").toBe(installed);
});

test("src/providers/catalog-answers.json is what the bundled catalog answers (npm run catalog-answers)", async () => {
  const file = await readFile(new URL("../src/providers/catalog-answers.json", import.meta.url), "utf8");
  const { renderBundledAnswers } = await import("../src/providers/catalog-answers.ts");
  expect(file, "run npm run catalog-answers").toBe(await renderBundledAnswers());
});

test("a model the SDKs list is answered from the bundled answers: no catalog, no cache", async () => {
  const bundled = await fresh();
  await bundled.loadCatalogFor([SONNET, { provider: "openai", id: "gpt-5.4-mini" }]);
  expect(bundled.catalogLoaded()).toBe(false);
  const catalog = await fresh();
  await catalog.loadCatalog();
  const now = new Date();
  for (const { provider, id } of [SONNET, { provider: "openai", id: "gpt-5.4-mini" }]) {
    expect(bundled.catalogEntry(provider, id, now)).toEqual(catalog.catalogEntry(provider, id, now));
  }
  expect(bundled.catalogEntry(SONNET.provider, SONNET.id, now)?.pricing).toMatchObject({
    input: 2,
    output: 10,
  });
  expect(bundled.catalogIds("anthropic")).toEqual(catalog.catalogIds("anthropic"));
  // Nothing was loaded, so nothing was written.
  expect(await readdir(cacheHome)).toEqual([]);
});

test("the first load writes the answers; a later process answers from them without the catalog", async () => {
  const first = await fresh();
  await first.loadCatalogFor([DATED]);
  expect(first.catalogLoaded()).toBe(true);
  const expected = first.catalogEntry(DATED.provider, DATED.id, new Date());
  expect(expected?.pricing).toMatchObject({ input: 2, output: 10 });
  const ids = first.catalogIds("anthropic");

  const [file] = await readdir(path.join(cacheHome, "agent-run"));
  expect(file).toMatch(/^catalog-answers-\d+\.\d+\.\d+\.json$/);

  const later = await fresh();
  await later.loadCatalogFor([DATED]);
  expect(later.catalogLoaded()).toBe(false);
  expect(later.catalogEntry(DATED.provider, DATED.id, new Date())).toEqual(expected);
  expect(later.catalogIds("anthropic")).toEqual(ids);
  // A model the cache does not hold: the catalog is loaded after all, and the cache grows.
  const opus = { provider: "anthropic", id: "claude-opus-4-1-20250805" };
  await later.loadCatalogFor([opus]);
  expect(later.catalogLoaded()).toBe(true);
  const third = await fresh();
  await third.loadCatalogFor([DATED, opus]);
  expect(third.catalogLoaded()).toBe(false);
  expect(third.catalogEntry(opus.provider, opus.id, new Date())?.id).toBe("claude-opus-4-1");
});

test("a broken cache is ignored and written anew", async () => {
  const dir = path.join(cacheHome, "agent-run");
  const [name] = await readdir(dir);
  const file = path.join(dir, name as string);
  // The good answers with one field of the wrong kind: each would be believed if not checked.
  const good = JSON.parse(await readFile(file, "utf8"));
  const [key] = Object.keys(good.entries) as [string];
  const [idsKey] = Object.keys(good.ids) as [string];
  const spoilt = (spoil: (copy: typeof good) => void) => {
    const copy = structuredClone(good);
    spoil(copy);
    return JSON.stringify(copy);
  };
  const wrongKinds = [
    spoilt((copy) => {
      copy.entries[key].pricing.input = "2";
    }),
    spoilt((copy) => {
      delete copy.entries[key].pricing.cacheWrite;
    }),
    spoilt((copy) => {
      copy.entries[key].contextWindow = "200000";
    }),
    spoilt((copy) => {
      copy.ids[idsKey] = "claude-sonnet-5";
    }),
    spoilt((copy) => {
      copy.entries = [copy.entries[key]];
    }),
  ];
  for (const broken of ["not json", '{"entries":{"x":{"id":1}},"ids":{}}', "null", ...wrongKinds]) {
    await writeFile(file, broken);
    const module = await fresh();
    await module.loadCatalogFor([DATED]);
    expect(module.catalogLoaded()).toBe(true);
    expect(module.catalogEntry(DATED.provider, DATED.id, new Date())?.pricing?.input).toBe(2);
    expect(JSON.parse(await readFile(file, "utf8")).entries).toBeTypeOf("object");
  }
});

let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm({ script: writeNoteThenDone });
});
afterAll(() => mock.close());

test("through the bundled CLI, on a fresh machine: the model is priced from the bundled answers", async () => {
  const home = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-cli-"));
  try {
    const dir = await tempWorkspace({
      "task.yml": "model: anthropic:claude-sonnet-5-5\nprompt: write note.txt\ntools: [write]\n",
    });
    const result = await runCli([path.join(dir, "task.yml")], {
      env: { XDG_CACHE_HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: mock.url },
    });
    expect(result.code, result.stderr).toBe(0);
    const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8"));
    expect(usage.cost_usd).toBeCloseTo((2100 * 2 + 60 * 10) / 1e6, 12);
    // The catalog was not loaded: it would have left its answers in the cache folder.
    expect(await readdir(home)).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});

test("through the bundled CLI: two runs price alike, the second from the cache", async () => {
  const home = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-cli-"));
  try {
    const costs: number[] = [];
    for (let run = 0; run < 2; run++) {
      const dir = await tempWorkspace({
        "task.yml": `model: anthropic:${DATED.id}\nprompt: write note.txt\ntools: [write]\n`,
      });
      const result = await runCli([path.join(dir, "task.yml")], {
        env: { XDG_CACHE_HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: mock.url },
      });
      expect(result.code, result.stderr).toBe(0);
      costs.push(JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8")).cost_usd);
      await rm(dir, { recursive: true, force: true });
    }
    expect(costs[0]).toBeCloseTo((2100 * 2 + 60 * 10) / 1e6, 12);
    expect(costs[1]).toBe(costs[0]);
    const [name] = await readdir(path.join(home, "agent-run"));
    const cache = JSON.parse(await readFile(path.join(home, "agent-run", name as string), "utf8"));
    expect(Object.keys(cache.entries).some((key) => key.endsWith(`\u0000anthropic\u0000${DATED.id}`))).toBe(
      true,
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});

test("a run with a cost limit prices from the catalog itself, whatever the cache says", async () => {
  const home = await mkdtemp(path.join(os.tmpdir(), "agent-run-cache-limit-"));
  try {
    const day = new Date().toISOString().slice(0, 10);
    const free = { id: "claude-sonnet-5", pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
    await mkdir(path.join(home, "agent-run"), { recursive: true });
    // Without the limit this cache would price the run at 0 (it is read: see the test above).
    await writeFile(
      path.join(home, "agent-run", `catalog-answers-${catalogVersion.version}.json`),
      JSON.stringify({
        entries: { [`${day}\u0000anthropic\u0000${DATED.id}`]: free },
        ids: { [`${day}\u0000anthropic`]: ["claude-sonnet-5"] },
      }),
    );
    const dir = await tempWorkspace({
      "task.yml": `model: anthropic:${DATED.id}\nprompt: write note.txt\ntools: [write]\nlimits: { max_cost_usd: 5 }\n`,
    });
    const result = await runCli([path.join(dir, "task.yml")], {
      env: { XDG_CACHE_HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: mock.url },
    });
    expect(result.code, result.stderr).toBe(0);
    const usage = JSON.parse(await readFile(path.join(dir, ".agent-run", "usage.json"), "utf8"));
    expect(usage.cost_usd).toBeCloseTo((2100 * 2 + 60 * 10) / 1e6, 12);
    await rm(dir, { recursive: true, force: true });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
