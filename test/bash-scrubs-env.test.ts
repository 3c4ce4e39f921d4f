import { describe, expect, test } from "vitest";
import { isCredentialName } from "../src/output/redact.ts";
import { createBashTool, isSecretName, scrubEnv } from "../src/tools/index.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

describe("secret scrubbing", () => {
  test.for([
    ["OPENAI_API_KEY", true],
    ["anthropic_api_key", true],
    ["GITHUB_TOKEN", true],
    ["NPM_TOKEN", true],
    ["ACTIONS_RUNTIME_TOKEN", true],
    ["ACTIONS_ID_TOKEN_REQUEST_URL", true],
    ["ACTIONS_ID_TOKEN_REQUEST_TOKEN", true],
    ["AWS_SECRET_ACCESS_KEY", true],
    ["DB_PASSWORD", true],
    ["PGPASSWORD", true],
    ["PATH", false],
    ["HOME", false],
    ["TOKENIZERS_PARALLELISM", false],
    ["CI", false],
    ["GITHUB_REPOSITORY", false],
  ] as const)("isSecretName(%s) is %s", ([name, secret]) => {
    expect(isSecretName(name)).toBe(secret);
  });

  test("scrubEnv removes secrets, keeps the pass-through list and reports names", () => {
    const { env, removed } = scrubEnv(
      { PATH: "/bin", GITHUB_TOKEN: "t", OPENAI_API_KEY: "k", NPM_TOKEN: "n", EMPTY: undefined },
      { passThrough: ["NPM_TOKEN"] },
    );
    expect(env).toEqual({ PATH: "/bin", NPM_TOKEN: "n" });
    expect(removed).toEqual(["GITHUB_TOKEN", "OPENAI_API_KEY"]);
  });

  test("the bash child does not see credentials unless passed through", async () => {
    const root = await makeWorkspace();
    const env = {
      PATH: process.env.PATH,
      GITHUB_TOKEN: "ghs_x",
      MY_API_KEY: "k1",
      NPM_TOKEN: "n1",
      PLAIN: "p",
    };
    const tool = createBashTool(root, { env, passThroughEnv: ["NPM_TOKEN"] });
    const result = await run(tool, {
      command: 'echo "[$GITHUB_TOKEN][$MY_API_KEY][$NPM_TOKEN][$PLAIN]"',
    });
    expect(textOf(result)).toBe("[][][n1][p]\n\n[Exit code: 0]");
    expect(result.details.scrubbedEnv).toEqual(["GITHUB_TOKEN", "MY_API_KEY"]);
  });

  test("every name the outputs redact is scrubbed from the bash child too (one rule)", async () => {
    const names = [
      "DB_PASSWD",
      "AZURE_STORAGE_ACCESS_KEY",
      "REGISTRY_AUTH",
      "GCP_CREDENTIALS",
      "CLIENTSECRET",
    ];
    for (const name of names) {
      expect(isCredentialName(name)).toBe(true);
      expect(isSecretName(name)).toBe(true);
    }
    const root = await makeWorkspace();
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, PLAIN: "p" };
    for (const name of names) env[name] = `value-of-${name}`;
    const result = await run(createBashTool(root, { env }), {
      command: `echo "${names.map((name) => `[$${name}]`).join("")}[$PLAIN]"`,
    });
    expect(textOf(result)).toBe("[][][][][][p]\n\n[Exit code: 0]");
    expect(result.details.scrubbedEnv).toEqual([...names].sort());
  });

  test("the process environment is scrubbed by default", async () => {
    const root = await makeWorkspace();
    process.env.AGENT_RUN_TEST_SECRET_VALUE = "leak";
    try {
      const result = await run(createBashTool(root), { command: 'echo "[$AGENT_RUN_TEST_SECRET_VALUE]"' });
      expect(textOf(result)).toBe("[]\n\n[Exit code: 0]");
    } finally {
      delete process.env.AGENT_RUN_TEST_SECRET_VALUE;
    }
  });
});
