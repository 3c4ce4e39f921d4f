/**
 * src/providers/fetch-classes.ts: `Headers`, `Response` and `FormData` without Node's fetch. The
 * oracle is Node's own classes (loaded here in the test process): the same operations give the same
 * answers. Then what they are for: a run of the bundled CLI, on either wire format, loads neither
 * undici nor `node:tls` (before, every run did: 40-55 ms, 17 MB and a certificate thread).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { FetchHeaders, FetchResponse, LazyFormData } from "../src/providers/fetch-classes.ts";
import { ROOT, runCli, tempWorkspace } from "./helpers/cli.ts";
import { startMockLlm } from "./mock-llm/server.ts";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

type Step = ["append" | "set", string, string] | ["delete", string];

/** Applies `steps` to a Headers-like and answers everything a reader could ask of it. */
function seen(headers: Headers | FetchHeaders, steps: Step[], asked: string[]) {
  for (const step of steps) {
    if (step[0] === "delete") headers.delete(step[1]);
    else headers[step[0]](step[1], step[2]);
  }
  const forEach: string[] = [];
  headers.forEach((value, name) => {
    forEach.push(`${name}=${value}`);
  });
  return {
    entries: [...headers],
    keys: [...headers.keys()],
    values: [...headers.values()],
    forEach,
    got: asked.map((name) => [headers.get(name), headers.has(name)]),
    cookies: headers.getSetCookie(),
  };
}

describe("FetchHeaders answers as Node's Headers", () => {
  const cases: [string, Step[]][] = [
    [
      "names in any case, values trimmed, sorted on iteration",
      [
        ["append", "X-Api-Key", "  k1 \t"],
        ["set", "content-type", "application/json"],
        ["append", "Accept", "text/event-stream"],
      ],
    ],
    [
      "append joins with a comma, set replaces, delete removes",
      [
        ["append", "x-b", "1"],
        ["append", "X-B", "2"],
        ["set", "x-a", "one"],
        ["set", "X-A", "two"],
        ["append", "x-gone", "v"],
        ["delete", "X-GONE"],
      ],
    ],
    [
      "set-cookie values stay apart",
      [
        ["append", "Set-Cookie", "a=1"],
        ["append", "set-cookie", "b=2, c=3"],
        ["append", "x-z", "last"],
      ],
    ],
    ["an empty value", [["append", "x-empty", "   "]]],
  ];
  for (const [what, steps] of cases) {
    test(what, () => {
      const asked = ["x-api-key", "X-B", "x-a", "set-cookie", "x-gone", "x-empty", "missing"];
      expect(seen(new FetchHeaders(), steps, asked)).toEqual(seen(new Headers(), steps, asked));
    });
  }

  test("made from a record, pairs, Node's Headers or its own kind", () => {
    const record = { "X-One": "1", "x-two": " 2 " };
    const pairs: [string, string][] = [
      ["x-one", "1"],
      ["X-One", "again"],
    ];
    const node = new Headers({ "x-node": "n", "set-cookie": "s=1" });
    for (const init of [record, pairs, node]) {
      expect([...new FetchHeaders(init)]).toEqual([...new Headers(init)]);
    }
    expect([...new FetchHeaders(new FetchHeaders(record))]).toEqual([...new Headers(record)]);
    expect([...new FetchHeaders()]).toEqual([]);
  });

  test("refuses what Node refuses: a bad name, a value with CR or LF or NUL, a pair of three", () => {
    const attempts: (() => unknown)[][] = [
      [() => new FetchHeaders({ "bad name": "v" }), () => new Headers({ "bad name": "v" })],
      [() => new FetchHeaders({ "x-a": "a\r\nb" }), () => new Headers({ "x-a": "a\r\nb" })],
      [() => new FetchHeaders({ "x-a": "a\0b" }), () => new Headers({ "x-a": "a\0b" })],
      [
        () => new FetchHeaders([["x-a", "1", "2"]] as unknown as [string, string][]),
        () => new Headers([["x-a", "1", "2"]] as unknown as [string, string][]),
      ],
    ];
    for (const [ours, nodes] of attempts) {
      expect(ours).toThrow(TypeError);
      expect(nodes).toThrow(TypeError);
    }
  });

  test("instanceof: ours and Node's are Headers; anything else is not", () => {
    expect(new FetchHeaders()).toBeInstanceOf(FetchHeaders);
    expect(new Headers()).toBeInstanceOf(FetchHeaders);
    expect({ get: () => null }).not.toBeInstanceOf(FetchHeaders);
    expect(new Map()).not.toBeInstanceOf(FetchHeaders);
    expect(Object.prototype.toString.call(new FetchHeaders())).toBe("[object Headers]");
  });
});

describe("FetchResponse answers as Node's Response", () => {
  const bodies: [string, () => ReadableStream<Uint8Array> | string | Uint8Array | null][] = [
    ["a stream in two chunks", () => streamOf(['{"a":', '"é"}'])],
    ["a string", () => '{"a":"é"}'],
    ["bytes", () => new TextEncoder().encode('{"a":"é"}')],
  ];
  for (const [what, body] of bodies) {
    test(`reads ${what} as text, JSON, bytes, an ArrayBuffer and a Blob`, async () => {
      for (const read of ["text", "json", "bytes", "arrayBuffer", "blob"] as const) {
        const init = { status: 201, statusText: "Made", headers: { "Content-Type": "application/json" } };
        const ours = new FetchResponse(body(), init);
        const nodes = new Response(body() as ConstructorParameters<typeof Response>[0], init);
        const [a, b] = [await ours[read](), await nodes[read]()];
        const plain = (value: unknown) =>
          value instanceof Blob
            ? Promise.all([value.type, value.text()])
            : value instanceof ArrayBuffer
              ? [...new Uint8Array(value)]
              : value instanceof Uint8Array
                ? [...value]
                : value;
        expect(await plain(a)).toEqual(await plain(b));
        expect([ours.status, ours.statusText, ours.ok, ours.bodyUsed]).toEqual([201, "Made", true, true]);
        expect([...ours.headers]).toEqual([...nodes.headers]);
        await expect(ours.text()).rejects.toThrow(TypeError);
      }
    });
  }

  test("no body: empty text, body null; ok only for 200-299; a status outside 200-599 is refused", async () => {
    const none = new FetchResponse(null, { status: 204 });
    expect([none.body, await none.text(), none.ok]).toEqual([null, "", true]);
    expect(new FetchResponse("x", { status: 429 }).ok).toBe(false);
    expect(new FetchResponse().status).toBe(200);
    for (const status of [199, 600, 1.5]) {
      expect(() => new FetchResponse(null, { status })).toThrow(RangeError);
      expect(() => new Response(null, { status })).toThrow(RangeError);
    }
  });

  test("a clone reads the same bytes as the original, each on its own", async () => {
    const original = new FetchResponse(streamOf(["one ", "two"]), { headers: { "x-id": "7" } });
    const copy = original.clone();
    expect(await copy.text()).toBe("one two");
    expect(await original.text()).toBe("one two");
    expect(copy.headers.get("x-id")).toBe("7");
    expect(() => original.clone()).toThrow(TypeError);
  });

  test("instanceof: ours and Node's are Responses", () => {
    expect(new FetchResponse()).toBeInstanceOf(FetchResponse);
    expect(new Response()).toBeInstanceOf(FetchResponse);
    expect({ status: 200 }).not.toBeInstanceOf(FetchResponse);
  });
});

test("LazyFormData makes Node's FormData, and instanceof knows it without loading it", () => {
  const form = new LazyFormData() as unknown as FormData;
  form.append("field", "value");
  expect(form).toBeInstanceOf(FormData);
  expect(form).toBeInstanceOf(LazyFormData);
  expect(new FormData()).toBeInstanceOf(LazyFormData);
  expect({}).not.toBeInstanceOf(LazyFormData);
});

describe("a run of the bundled CLI loads no undici and no node:tls", () => {
  for (const [model, env] of [
    ["anthropic:claude-haiku-4-5", (url: string) => ({ ANTHROPIC_BASE_URL: url })],
    ["openai:gpt-5-mini", (url: string) => ({ OPENAI_BASE_URL: `${url}/v1` })],
  ] as const) {
    test(model, async () => {
      const mock = await startMockLlm({
        script: [
          { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "a\n" } }] },
          { text: "Done." },
        ],
      });
      try {
        const hookDir = await mkdtemp(path.join(os.tmpdir(), "fetch-classes-hook-"));
        dirs.push(hookDir);
        const loaded = path.join(hookDir, "loaded.txt");
        const hook = path.join(hookDir, "hook.mjs");
        await writeFile(
          hook,
          `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join("\\n")));\n`,
        );
        const dir = await tempWorkspace({ "task.yml": `model: ${model}\nprompt: write a\ntools: [write]\n` });
        dirs.push(dir);
        const result = await runCli([path.join(dir, "task.yml")], {
          env: {
            ANTHROPIC_API_KEY: "k",
            OPENAI_API_KEY: "k",
            ...env(mock.url),
            NODE_OPTIONS: `--import=${hook}`,
          },
        });
        expect(result.code, result.stderr).toBe(0);
        expect(await readFile(path.join(dir, "a.txt"), "utf8")).toBe("a\n");
        const modules = (await readFile(loaded, "utf8")).split("\n");
        expect(modules).toContain("NativeModule http");
        expect(modules.filter((name) => /undici|\btls\b|http2|https/.test(name))).toEqual([]);
      } finally {
        await mock.close();
      }
    });
  }
});

// What the first request needs is loaded by the provider's preload, while the run starts, not on
// that request's way: node:http (node:https and node:tls for an https base URL: the certificates are
// parsed then) and the web streams an answer's body is read through.
test("a provider's preload loads the transport its base URL needs", async () => {
  const loadedAfterPreload = (provider: string, baseUrl: string) =>
    new Promise<string[]>((resolve, reject) => {
      const script = [
        `import { createAnthropicProvider, createOpenAIProvider } from ${JSON.stringify(path.join(ROOT, "src/providers/index.ts"))};`,
        `const create = ${provider === "anthropic" ? "createAnthropicProvider" : "createOpenAIProvider"};`,
        `const model = { provider: ${JSON.stringify(provider)}, id: "m", baseUrl: ${JSON.stringify(baseUrl)} };`,
        `create(model, { env: { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" } }).preload();`,
        `console.log(process.moduleLoadList.join("\\n"));`,
      ].join("\n");
      execFile(process.execPath, ["--input-type=module", "-e", script], (error, stdout, stderr) =>
        error ? reject(new Error(stderr)) : resolve(stdout.trim().split("\n")),
      );
    });
  const watched = [
    "NativeModule http",
    "NativeModule https",
    "NativeModule tls",
    "NativeModule internal/webstreams/readablestream",
  ];
  for (const provider of ["anthropic", "openai"]) {
    const https = await loadedAfterPreload(provider, "https://127.0.0.1:9/v1");
    expect(watched.filter((name) => https.includes(name))).toEqual(watched.slice(1));
    const http = await loadedAfterPreload(provider, "http://127.0.0.1:9/v1");
    expect(watched.filter((name) => http.includes(name))).toEqual([watched[0], watched[3]]);
  }
});

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}
