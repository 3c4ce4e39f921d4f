/**
 * The redactor's second net and its encodings: tokens of a known shape are redacted though nobody
 * told the runner about them, raw, JSON-escaped, URL-encoded and inside base64 at any offset
 * (wrapped or not); a known secret is found inside the base64 of a longer text too; text that only
 * resembles a token is left alone.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { createRedactor } from "../src/output/redact.ts";
import {
  base64Spans,
  hasBase64RunIn,
  hasWrappedBase64Line,
  prefixTreeSource,
} from "../src/output/token-shapes.ts";
import { seededRandom } from "./helpers/seeded-random.ts";

// Built at run time so no token-shaped literal sits in the repository.
const body36 = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const TOKENS: Record<string, string> = {
  "GitHub personal (classic)": `ghp_${body36}`,
  "GitHub OAuth": `gho_${body36}`,
  "GitHub installation": `ghs_${body36}`,
  "GitHub user-to-server": `ghu_${body36}`,
  "GitHub refresh": `ghr_${body36}`,
  "GitHub fine-grained": `github_pat_11ABCDEFG0${body36}_${body36}`,
  Anthropic: `sk-ant-api03-${body36}${body36}-AA`,
  "OpenAI project": `sk-proj-${body36}_${body36}-${body36}`,
  "OpenAI legacy": `sk-${body36}T3BlbkFJ${body36.slice(0, 12)}`,
  "AWS access key id": "AKIAZ7Q3XK2M4P6R8T1V",
  "AWS temporary key id": "ASIAZ7Q3XK2M4P6R8T1V",
  "Slack bot": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  "Slack user": "xoxp-123456789012-1234567890123-1234567890123-0123456789abcdef0123456789abcdef",
};

const redact = createRedactor().redact;
const base64 = (text: string) => Buffer.from(text).toString("base64");

describe("tokens of a known shape, never seeded", () => {
  test.for(Object.entries(TOKENS))("%s: raw, JSON-escaped, URL-encoded", ([, token]) => {
    expect(redact(`export KEY=${token}\n`)).toBe("export KEY=***\n");
    expect(redact(JSON.stringify({ content: `key "${token}"\n` }))).toBe('{"content":"key \\"***\\"\\n"}');
    expect(redact(`https://x.example/?key=${encodeURIComponent(token)}&a=1`)).toBe(
      "https://x.example/?key=***&a=1",
    );
  });

  test.for(Object.entries(TOKENS))(
    "%s: inside base64 at each offset, on one line and wrapped",
    ([, token]) => {
      for (const before of ["", "K=", "KEY=", "a longer line before it\nKEY="]) {
        const text = `${before}${token}\nPATH=/usr/bin\n`;
        const oneLine = base64(text);
        expect(redact(`data ${oneLine} end`), before).toBe("data *** end");
        // `base64` wraps at 76 characters, openssl and PEM at 64.
        const wrapped = execFileSync("base64", { input: text, encoding: "utf8" });
        expect(redact(`-----\n${wrapped}-----`)).toBe("-----\n***\n-----");
        const pem = oneLine.replace(/(.{64})/g, "$1\n");
        expect(redact(pem).includes(oneLine.slice(0, 64)), pem).toBe(false);
      }
    },
  );

  test("text that only resembles a token is left alone", () => {
    const text = [
      "task-runner-configuration-for-the-project and risk-assessment-for-the-whole-team",
      "sk-learn-compatible-estimator-classes-here (no digit, no capital)",
      "AWS's documented AKIAIOSFODNN7EXAMPLE id",
      "ghp_tooShort0123 and a git sha 3f786850e387550fdab836ed7e6dc881de23001b",
      "xoxb-short-1",
      "src/components/WidgetState/useWidgetStateHook.tsx and node_modules/@typescript-eslint/parser",
      base64("just ordinary words with nothing secret in them, long enough to be a run"),
    ].join("\n");
    expect(redact(text)).toBe(text);
  });
});

describe("a known secret inside the base64 of a longer text", () => {
  // Characters that JSON escapes and URL encoding changes, so each form differs from the raw one.
  const SECRET = 'canary/+"\\%&=value-8d1f';
  const redactor = createRedactor({ extra: [SECRET] });

  test.for([0, 1, 2, 3, 4, 5])("at offset %i of the encoded text", (offset) => {
    const text = `${"x".repeat(offset)}INPUT_GITHUB-TOKEN=${SECRET}\u0000OTHER=1`;
    const encoded = base64(text);
    const out = redactor.redact(`${encoded} ${Buffer.from(text).toString("base64url")}`);
    expect(out).toContain("***");
    // What is left around the cut decodes to no more than two bytes of the secret at either end.
    const decoded = Buffer.from(out.split(" ")[0]?.replace("***", "") ?? "", "base64").toString("latin1");
    expect(decoded).not.toContain(SECRET.slice(2, -2));
    expect(out.split(" ")[1]).not.toBe(Buffer.from(text).toString("base64url"));
  });

  test("in base64 wrapped at 76 characters, wherever a line break cuts it", () => {
    for (let offset = 0; offset < 80; offset += 7) {
      const text = `${"y".repeat(offset)}=${SECRET}\n`.repeat(3);
      const wrapped = execFileSync("base64", { input: text, encoding: "utf8" });
      const out = redactor.redact(`env:\n${wrapped}end`);
      const left = Buffer.from(out.replace(/^env:\n|end$/g, "").replace(/\*\*\*/g, ""), "base64").toString(
        "latin1",
      );
      expect(left, `offset ${offset}`).not.toContain(SECRET.slice(2, -2));
    }
  });

  test("raw, JSON-escaped and URL-encoded", () => {
    expect(redactor.redact(`a ${SECRET} b`)).toBe("a *** b");
    expect(redactor.redact(JSON.stringify({ v: SECRET }))).toBe('{"v":"***"}');
    expect(redactor.redact(`?v=${encodeURIComponent(SECRET)}`)).toBe("?v=***");
  });
});

describe("the look for a line of wrapped base64", () => {
  // What it answers, by its definition: a line (up to a line break, less a CR before it) of
  // exactly 64 or 76 characters, all base64's.
  const byDefinition = (text: string) =>
    text
      .split("\n")
      .slice(0, -1)
      .some((line) => /^(?:[A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{76})\r?$/.test(line));

  test("answers as the definition on chosen edges", () => {
    const b = (n: number) => "Ab0+/".repeat(20).slice(0, n);
    const cases = [
      `${b(64)}\n`,
      `${b(76)}\r\n`,
      `x\n${b(64)}\nmore`,
      `${b(63)}\n`,
      `${b(65)}\n`,
      `${b(75)}\n`,
      `${b(77)}\n`,
      `${b(64)}`,
      `${b(64)}\r`,
      `${b(64)}\r\r\n`,
      `-${b(64)}\n`,
      `${b(64)}-\n`,
      `\r${b(64)}\n`,
      `${b(40)}\n${b(64)}\n`,
      `${b(200)}\n${b(64)}\n`,
      `${"1\n".repeat(40)}${b(76)}\n`,
      "",
    ];
    for (const text of cases)
      expect(hasWrappedBase64Line(text), JSON.stringify(text)).toBe(byDefinition(text));
  });

  test("answers as the definition on random texts", () => {
    const random = seededRandom(0x5eed);
    const rare = "Zz9+/\n\r-=_ ";
    for (let n = 0; n < 5000; n++) {
      const lines: string[] = [];
      for (let count = Math.floor(random() * 6); count >= 0; count--) {
        // Mostly lengths near 64 and 76, where the answer turns.
        const near = [63, 64, 65, 75, 76, 77][Math.floor(random() * 6)] ?? 64;
        const length = random() < 0.7 ? near : Math.floor(random() * 160);
        let line = "";
        for (let i = 0; i < length; i++)
          line += random() < 0.97 ? "A" : (rare[Math.floor(random() * rare.length)] ?? "A");
        lines.push(line);
      }
      const text = lines.join(random() < 0.5 ? "\n" : "\r\n");
      expect(hasWrappedBase64Line(text), JSON.stringify(text)).toBe(byDefinition(text));
    }
  });
});

describe("a tree of words' shared beginnings as a regular expression", () => {
  const literal = (word: string) => word.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
  test("finds one of the words wherever their plain alternation does", () => {
    const random = seededRandom(18);
    const pick = (chars: string) => chars[Math.floor(random() * chars.length)] ?? "";
    for (let round = 0; round < 300; round++) {
      // Few letters, so that words share beginnings and texts hold them often.
      const words = Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
        Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick("ab+/-c")).join(""),
      );
      const tree = new RegExp(prefixTreeSource(words));
      const plain = new RegExp(words.map(literal).join("|"));
      for (let i = 0; i < 20; i++) {
        const text = Array.from({ length: Math.floor(random() * 12) }, () => pick("ab+/-cd\n")).join("");
        expect(tree.test(text), `${JSON.stringify(words)} in ${JSON.stringify(text)}`).toBe(plain.test(text));
      }
    }
  });

  test("no word matches nowhere; an empty word everywhere", () => {
    expect(new RegExp(prefixTreeSource([])).test("anything")).toBe(false);
    expect(new RegExp(prefixTreeSource([""])).test("")).toBe(true);
  });
});

describe("the look for a run of base64 in bytes", () => {
  // The definition: a run of 27 or more base64 or base64url characters in the bytes' text.
  const byDefinition = (bytes: Uint8Array) => /[A-Za-z0-9+/_-]{27}/.test(Buffer.from(bytes).toString("utf8"));
  const check = (bytes: Uint8Array) =>
    expect(hasBase64RunIn(bytes), JSON.stringify(Buffer.from(bytes).toString("latin1"))).toBe(
      byDefinition(bytes),
    );

  test("answers as the definition on chosen edges", () => {
    const run = (n: number) => "Ab0+/-_".repeat(10).slice(0, n);
    for (const text of [
      "",
      run(26),
      run(27),
      run(28),
      `x${run(27)}`,
      `${run(27)}x`,
      `${run(26)} ${run(26)}`,
      `${run(13)}\n${run(14)}`,
      `${run(20)}é${run(20)}`,
      `é${run(27)}`,
      `${"1234567\n".repeat(50)}${run(27)}`,
      `${"1234567\n".repeat(50)}`,
      `${run(26)}=`,
    ]) {
      check(Buffer.from(text, "utf8"));
    }
    // Bytes that are not UTF-8 decode to U+FFFD, which is no base64 either.
    check(Buffer.concat([Buffer.from(run(14)), Buffer.from([0xc3]), Buffer.from(run(14))]));
    check(Buffer.concat([Buffer.from(run(27)), Buffer.from([0xff])]));
  });

  test("answers as the definition on random bytes", () => {
    const random = seededRandom(0xba5e);
    const breaks = [10, 32, 61, 46, 0xc3, 0xa9, 0xff, 0x80];
    for (let n = 0; n < 5000; n++) {
      const bytes: number[] = [];
      // Runs of lengths near 27 between single breaks, where the answer turns.
      for (let parts = Math.floor(random() * 6); parts >= 0; parts--) {
        const length = random() < 0.7 ? 24 + Math.floor(random() * 6) : Math.floor(random() * 60);
        for (let i = 0; i < length; i++) bytes.push("aZ9+/-_"[Math.floor(random() * 7)]!.charCodeAt(0));
        bytes.push(breaks[Math.floor(random() * breaks.length)]!);
      }
      check(Uint8Array.from(bytes));
    }
  });
});

describe("where base64 runs and blocks of wrapped base64 are", () => {
  // The definitions, as the redactor searched for them before they were found by hand.
  const LINES = String.raw`(?:[A-Za-z0-9+/]{76}\r?\n|[A-Za-z0-9+/]{64}\r?\n)+[A-Za-z0-9+/]+={0,2}`;
  const RUNS = new RegExp(String.raw`(?<![A-Za-z0-9+/_-])(?:${LINES}|[A-Za-z0-9+/_-]{27,}={0,2})`, "g");
  const BLOCKS = new RegExp(String.raw`(?<![A-Za-z0-9+/_-])${LINES}`, "g");
  const byDefinition = (text: string, pattern: RegExp) =>
    [...text.matchAll(pattern)].flatMap((match) => [match.index, match.index + match[0].length]);
  const check = (text: string) => {
    expect(base64Spans(text, true), JSON.stringify(text)).toEqual(byDefinition(text, RUNS));
    expect(base64Spans(text, false), JSON.stringify(text)).toEqual(byDefinition(text, BLOCKS));
  };

  test("found as the definitions find them on chosen edges", () => {
    const b = (n: number) => "Ab0+/".repeat(40).slice(0, n);
    for (const text of [
      "",
      b(27),
      b(26),
      `${b(26)}_`,
      `${b(27)}==x`,
      `${b(27)}===`,
      `${b(76)}\n${b(76)}\n${b(10)}==`,
      `${b(76)}\n${b(76)}\n`,
      `${b(76)}\n`,
      `${b(64)}\r\n${b(64)}\r\n==`,
      `${b(64)}\r\n${b(76)}\n${b(5)}`,
      `x${b(76)}\n${b(3)}`,
      `-${b(76)}\n${b(3)}`,
      `"${b(76)}\n${b(3)}"`,
      `${b(76)}\n${b(3)}_${b(30)}`,
      `${b(76)}\n${b(3)}-tail`,
      `${b(76)}\n${b(76)}\n\n${b(76)}\n${b(76)}\nend`,
      `${b(76)}\r${b(76)}\n${b(2)}`,
      `${b(75)}\n${b(76)}\n${b(2)}`,
      `${b(77)}\n${b(76)}\n${b(2)}`,
      `${b(76)}_\n${b(76)}\n${b(2)}`,
      `==${b(30)}==${b(30)}`,
      `${b(30)}=${b(30)}`,
      `${b(76)}\n${b(76)}`,
    ]) {
      check(text);
    }
  });

  test("found as the definitions find them in random texts", () => {
    const random = seededRandom(0xb10c);
    const rare = 'Zz9+/\n\r-=_ "';
    for (let n = 0; n < 5000; n++) {
      const lines: string[] = [];
      for (let count = Math.floor(random() * 7); count >= 0; count--) {
        // Mostly lengths at and near 64 and 76, and around 27.
        const near = [26, 27, 28, 63, 64, 65, 75, 76, 77, 64, 76][Math.floor(random() * 11)] ?? 64;
        const length = random() < 0.8 ? near : Math.floor(random() * 160);
        let line = "";
        for (let i = 0; i < length; i++)
          line +=
            random() < 0.985
              ? "Ab0+/"[Math.floor(random() * 5)]
              : (rare[Math.floor(random() * rare.length)] ?? "A");
        if (random() < 0.2) line += "=".repeat(Math.floor(random() * 4));
        lines.push(line);
      }
      check(lines.join(random() < 0.5 ? "\n" : "\r\n"));
    }
  });
});
