/**
 * The search that tells the redactor whether a text holds a secret's form before its regular
 * expression runs (src/output/form-finder.ts): it must never say no where a form is, at any place,
 * of any length, whatever characters surround or make it.
 */
import { describe, expect, test } from "vitest";
import { createFormFinder, MIN_LENGTH } from "../src/output/form-finder.ts";
import { createRedactor } from "../src/output/redact.ts";
import { seededRandom } from "./helpers/seeded-random.ts";

const byDefinition = (strings: string[], text: string) => strings.some((s) => text.includes(s));

describe("the form finder", () => {
  test("none for strings shorter than it pays for, or for no strings", () => {
    expect(createFormFinder([])).toBeUndefined();
    expect(createFormFinder(["a".repeat(MIN_LENGTH - 1), "b".repeat(40)])).toBeUndefined();
    expect(createFormFinder(["a".repeat(MIN_LENGTH)])).toBeDefined();
  });

  test("takes the forms of thousands of masked values (more than a call's arguments can hold)", () => {
    const strings = Array.from({ length: 200_000 }, (_, i) => `masked-value-${String(i).padStart(8, "0")}`);
    const find = createFormFinder(strings)!;
    expect(find("x masked-value-00123456 y")).toBe(true);
    expect(find("x masked-value-0012345 y")).toBe(false);
  });

  test("answers as the definition on chosen edges", () => {
    const strings = ["secret-value-0123", "c2VjcmV0LXZhbHVlLTAxMjM", "ab\u00e9\ud83d\ude00cdefghijklmnop"];
    const find = createFormFinder(strings)!;
    for (const text of [
      "",
      strings[0]!,
      `x${strings[0]}`,
      `${strings[0]}x`,
      strings[0]!.slice(0, -1),
      strings[0]!.slice(1),
      `secret-value-012secret-value-0123`,
      `${"secret-value-012".repeat(20)}3`,
      `héllo ${strings[2]} wörld`,
      `${strings[2]!.slice(0, 5)} ${strings[2]!.slice(5)}`,
      `${"\n".repeat(100)}${strings[1]}`,
      `${strings[1]!.slice(0, 12)}\n${strings[1]!.slice(12)}`,
    ]) {
      expect(find(text), JSON.stringify(text)).toBe(byDefinition(strings, text));
    }
  });

  test("answers as the definition on random texts and strings", () => {
    const random = seededRandom(0xf1d);
    // A small alphabet, so strings share pairs of characters and texts hold near misses.
    const alphabet = "abcAB01-_\n\u00e9\ud83d\ude00";
    const word = (length: number) =>
      Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    for (let n = 0; n < 3000; n++) {
      const strings = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        word(MIN_LENGTH + Math.floor(random() * 20)),
      );
      const find = createFormFinder(strings);
      if (!find) continue;
      let text = word(Math.floor(random() * 200));
      if (random() < 0.5) {
        const s = strings[Math.floor(random() * strings.length)]!;
        const at = Math.floor(random() * (text.length + 1));
        // Whole, or cut by one character: the near miss must be a "no" unless another string is there.
        const planted = random() < 0.5 ? s : s.slice(0, -1);
        text = text.slice(0, at) + planted + text.slice(at);
      }
      expect(find(text), JSON.stringify({ strings, text })).toBe(byDefinition(strings, text));
    }
  });

  test("the redactor finds every form of a long secret through it, in a text of any size", () => {
    const secret = "k9Qz7LmP2xVb8NwR4tYc6HdJ";
    const redactor = createRedactor({ extra: [secret] });
    const base64 = Buffer.from(secret).toString("base64");
    const filler = "an ordinary line of build output, nothing to see\n".repeat(20_000);
    for (const form of [secret, encodeURIComponent(secret), base64, JSON.stringify(secret).slice(1, -1)]) {
      for (const at of [0, 1, filler.length >> 1, filler.length]) {
        const text = filler.slice(0, at) + form + filler.slice(at);
        const out = redactor.redact(text);
        expect(out, `${form} at ${at}`).not.toContain(form);
        expect(out.length).toBe(text.length - form.length + 3);
      }
    }
  });

  test("a secret too short for the finder is still found beside a long one, in either's forms", () => {
    const short = "hunt3r!";
    const long = "k9Qz7LmP2xVb8NwR4tYc6HdJ";
    const redactor = createRedactor({ extra: [short, long] });
    const filler = "an ordinary line of build output, nothing to see\n".repeat(5_000);
    for (const form of [short, encodeURIComponent(short), Buffer.from(short).toString("base64"), long]) {
      const text = `${filler}${form}${filler}`;
      expect(redactor.redact(text), form).toBe(`${filler}***${filler}`);
    }
    expect(redactor.redact(filler)).toBe(filler);
  });
});
