/**
 * The action relays the run's log in pieces, each redacted whole (src/action/log-relay.ts): a
 * secret whose base64 lies across two chunks of the run's output, at a line feed inside a block of
 * wrapped base64, is found as surely as one inside a chunk, and ordinary lines go on at once.
 */
import { describe, expect, test } from "vitest";
import { createLogRelay } from "../src/action/log-relay.ts";
import { createRedactor } from "../src/output/redact.ts";

const SECRET = "relayed-log-secret-5e1d";
const redactor = createRedactor({ extra: [SECRET] });

function relayed(chunks: string[]): string {
  const writes: string[] = [];
  const relay = createLogRelay((chunk) => writes.push(chunk), redactor);
  for (const chunk of chunks) relay.write(chunk);
  relay.flush();
  return writes.join("");
}

/** The run's output split at each of its line feeds in turn, relayed: the secret's base64 is gone each time. */
function expectRedactedWhereverSplit(log: string, first: string, last: string): void {
  for (let at = log.indexOf("\n") + 1; at > 0 && at < log.length; at = log.indexOf("\n", at) + 1) {
    const out = relayed([log.slice(0, at), log.slice(at)]);
    // The block's lines alone, joined: base64's decoder would stumble on the lines around it.
    const joined = out
      .split("\n")
      .filter((line) => /^[A-Za-z0-9+/=]+$/.test(line))
      .join("");
    for (let offset = 0; offset < 4; offset++) {
      const decoded = Buffer.from(joined.slice(offset), "base64").toString("latin1");
      expect(decoded, `split at ${at}`).not.toContain(SECRET);
    }
    expect(out.startsWith(first), `split at ${at}`).toBe(true);
    expect(out.endsWith(last), `split at ${at}`).toBe(true);
  }
}

describe("the action's log relay", () => {
  test("a secret's base64 across a chunk's end inside a block of wrapped base64: redacted", () => {
    // The secret's base64 moved over a line's width: at most places it lies across a line feed.
    for (let shift = 700; shift < 760; shift += 5) {
      const bytes = Buffer.concat([Buffer.alloc(shift, 7), Buffer.from(SECRET), Buffer.alloc(900, 9)]);
      const block = `${bytes.toString("base64").replace(/.{76}/g, "$&\n")}\n`;
      const first = "  ✓ bash base64 blob (3 ms)\n";
      expectRedactedWhereverSplit(`${first}${block}▸ turn 2\n`, first, "▸ turn 2\n");
    }
  });

  test("ordinary lines go on as they come; a line without its end waits for it", () => {
    const writes: string[] = [];
    const relay = createLogRelay((chunk) => writes.push(chunk), redactor);
    relay.write(`▸ turn 1 · model\n  ✓ read a.ts (1 ms)\n  key ${SECRET}\n`);
    expect(writes).toEqual(["▸ turn 1 · model\n  ✓ read a.ts (1 ms)\n  key ***\n"]);
    relay.write(`  ✓ bash echo ${SECRET.slice(0, 9)}`);
    expect(writes).toHaveLength(1);
    relay.write(`${SECRET.slice(9)} (2 ms)\n`);
    expect(writes[1]).toBe("  ✓ bash echo *** (2 ms)\n");
    relay.write("success · 2 turns");
    relay.flush();
    expect(writes[2]).toBe("success · 2 turns");
  });

  test("with a secret of several lines, the last lines still go on at once", () => {
    const writes: string[] = [];
    const withKey = createRedactor({ extra: ["-----BEGIN KEY-----\nabcdef0123456789\n-----END KEY-----"] });
    const relay = createLogRelay((chunk) => writes.push(chunk), withKey);
    relay.write("▸ turn 3 · model\n");
    expect(writes).toEqual(["▸ turn 3 · model\n"]);
  });
});
