import { readFile } from "node:fs/promises";
import path from "node:path";
import { Ajv } from "ajv";
import { expect, test } from "vitest";
import { renderEventsJsonSchema } from "../scripts/event-schema.ts";
import { ROOT, tempWorkspace } from "./helpers/cli.ts";
import { runScriptedCli } from "./helpers/scripted-cli.ts";

/**
 * Issue 16: schema/events.schema.json is generated from the event union (`npm run schema`) and
 * current; every line a real run writes to events.jsonl satisfies it; docs/outputs.md documents
 * every event type it has.
 */
interface Member {
  $ref?: string;
  anyOf?: Member[];
  allOf?: Member[];
  properties?: { type?: { const?: string } };
}

const SCHEMA_FILE = path.join(ROOT, "schema", "events.schema.json");

test("the committed schema/events.schema.json is current (run `npm run schema`)", {
  timeout: 120_000,
}, async () => {
  expect(await readFile(SCHEMA_FILE, "utf8")).toBe(renderEventsJsonSchema());
});

const TASK = `name: events
model: anthropic:claude-sonnet-5-5
prompt: Fix a.txt.
sandbox: off
tools: [read, edit, bash]
limits: { max_turns: 6 }
hooks:
  before_tool_call:
    - match: { tool: bash, command: "git push*" }
      block: not here
  after_tool_call:
    - match: { tool: edit }
      run: echo checked
  before_stop:
    - run: test -f done.txt
`;

test("every line of a real run's events.jsonl satisfies the schema; every type is documented", {
  timeout: 60_000,
}, async () => {
  const dir = await tempWorkspace({ "a.txt": "one\n" });
  const run = await runScriptedCli(dir, TASK, [
    {
      text: "Reading.",
      tool_calls: [
        { name: "read", arguments: { path: "a.txt" } },
        { name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "one", newText: "1" }] } },
        { name: "edit", arguments: { path: "a.txt", edits: [{ oldText: "zzz", newText: "1" }] } },
        { name: "bash", arguments: { command: "git push" } },
      ],
    },
    { text: "Done." },
    { tool_calls: [{ name: "bash", arguments: { command: "touch done.txt" } }] },
    { text: "Done now." },
  ]);
  expect(run.code).toBe(0);
  const schema = JSON.parse(await readFile(SCHEMA_FILE, "utf8")) as Record<string, unknown>;
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  const text = await readFile(path.join(run.outDir, "events.jsonl"), "utf8");
  const types = new Set<string>();
  for (const line of text.split("\n").filter(Boolean)) {
    const event = JSON.parse(line) as { type: string };
    types.add(event.type);
    expect(
      validate(event) ? "valid" : `${line.slice(0, 300)}: ${JSON.stringify(validate.errors?.slice(0, 3))}`,
    ).toBe("valid");
  }
  for (const type of [
    "run_start",
    "tool_execution_end",
    "hook_end",
    "hook_decision",
    "message_update",
    "usage",
    "run_end",
  ])
    expect(types).toContain(type);

  // Not any object passes: a wrong field type or an unknown event is refused.
  expect(
    validate({
      type: "run_end",
      conclusion: "won",
      exitCode: 0,
      turns: 1,
      durationMs: 1,
      costUsd: null,
      filesChanged: 0,
    }),
  ).toBe(false);
  expect(validate({ type: "made_up" })).toBe(false);

  const doc = await readFile(path.join(ROOT, "docs", "outputs.md"), "utf8");
  const documented = [...doc.matchAll(/^\| `([a-z_]+)` +\|/gm)].map((match) => match[1]);
  // The event types: the union's members, through the unions it is made of.
  const definitions = schema.definitions as Record<string, Member>;
  const typesOf = (member: Member): string[] => {
    if (member.$ref) return typesOf(definitions[member.$ref.replace("#/definitions/", "")]!);
    const own = member.properties?.type?.const;
    return [
      ...(own ? [own] : []),
      ...(member.anyOf ?? []).flatMap(typesOf),
      ...(member.allOf ?? []).flatMap(typesOf),
    ];
  };
  const inSchema = typesOf(definitions.CompactRunEvent!);
  expect(inSchema.length).toBeGreaterThan(15);
  for (const type of inSchema) expect(documented).toContain(type);
});
