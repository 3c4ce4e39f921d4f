import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runCli, tempWorkspace } from "./helpers/cli.ts";
import { writeNoteThenDone } from "./helpers/mock-scripts.ts";
import { type MockLlm, startMockLlm } from "./mock-llm/server.ts";

/**
 * The providers' requests over TLS, as against the real APIs, through the bundled CLI: the SDKs'
 * fetch (src/providers/http-fetch.ts) speaks node:https to a mock that serves HTTPS with a
 * self-signed certificate for 127.0.0.1 (test/fixtures/tls, made for these tests only). Trusted
 * through NODE_EXTRA_CA_CERTS, the run streams to the end; not trusted, the run fails on the
 * certificate instead of talking to a server it cannot verify.
 */
const TLS_DIR = fileURLToPath(new URL("./fixtures/tls/", import.meta.url));
let mock: MockLlm;
beforeAll(async () => {
  mock = await startMockLlm({
    script: writeNoteThenDone,
    tls: {
      key: await readFile(path.join(TLS_DIR, "key.pem"), "utf8"),
      cert: await readFile(path.join(TLS_DIR, "cert.pem"), "utf8"),
    },
  });
});
afterAll(() => mock.close());

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ANTHROPIC_API_KEY: "test-anthropic-key",
  ANTHROPIC_BASE_URL: mock.url,
  OPENAI_API_KEY: "test-openai-key",
  OPENAI_BASE_URL: `${mock.url}/v1`,
  AGENT_RUN_MAX_RETRIES: "0",
  ...extra,
});

test.for([
  ["anthropic:claude-haiku-4-5", "anthropic"],
  ["openai:gpt-5-mini", "responses"],
] as const)(
  "%s over HTTPS with the certificate trusted: the run streams to the end",
  async ([model, format]) => {
    expect(mock.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const dir = await tempWorkspace({
      "task.yml": `model: ${model}\nprompt: write note.txt\ntools: [write]\n`,
    });
    const before = mock.requests.length;
    const result = await runCli([path.join(dir, "task.yml")], {
      env: env({ NODE_EXTRA_CA_CERTS: path.join(TLS_DIR, "cert.pem") }),
    });
    expect(result.stderr).toContain("success · 2 turns");
    expect(result.code).toBe(0);
    const served = mock.requests.slice(before);
    expect(served.map((r) => r.format)).toEqual([format, format]);
    expect(served.map((r) => r.headers["sec-fetch-mode"])).toEqual([undefined, undefined]);
    expect(await readFile(path.join(dir, "note.txt"), "utf8")).toBe("from the model\n");
  },
);

test("over HTTPS with a certificate nobody vouches for: no request is answered, the run fails on it", async () => {
  const dir = await tempWorkspace({
    "task.yml": "model: anthropic:claude-haiku-4-5\nprompt: write note.txt\ntools: [write]\n",
  });
  const before = mock.requests.length;
  const result = await runCli([path.join(dir, "task.yml")], { env: env({ NODE_EXTRA_CA_CERTS: "" }) });
  expect(result.code).toBe(4);
  expect(result.stderr).toMatch(/could not connect: .*self-signed certificate/);
  expect(mock.requests.length).toBe(before);
});
