import { describe, expect, test } from "vitest";
import {
  createHeadTailBuffer,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  truncateHead,
  truncateHeadTail,
  truncateLine,
  truncateTail,
} from "../src/tools/index.ts";

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

describe("truncation", () => {
  test("defaults are 2000 lines and 50 KiB", () => {
    expect(DEFAULT_MAX_LINES).toBe(2000);
    expect(DEFAULT_MAX_BYTES).toBe(51200);
  });

  test("text within the limits is untouched", () => {
    const result = truncateHeadTail("a\nb\n", { maxLines: 10 });
    expect(result).toMatchObject({ content: "a\nb\n", truncated: false, truncatedBy: null, totalLines: 2 });
  });

  test("head keeps whole lines from the start and says what was dropped", () => {
    const result = truncateHead(numbered(10), { maxLines: 3 });
    expect(result.content).toBe("line 1\nline 2\nline 3\n");
    expect(result).toMatchObject({ truncated: true, truncatedBy: "lines", outputLines: 3, droppedLines: 7 });
  });

  test("tail keeps whole lines from the end", () => {
    const result = truncateTail(numbered(10), { maxLines: 2 });
    expect(result.content).toBe("line 9\nline 10");
    expect(result.droppedLines).toBe(8);
  });

  test("head+tail keeps both ends and marks the elided middle", () => {
    const result = truncateHeadTail(numbered(10), { maxLines: 4, fullOutputPath: "/tmp/full.log" });
    expect(result.content).toMatchInlineSnapshot(`
      "line 1
      line 2
      [... 6 lines (42 bytes) elided; kept the first 2 and last 2 of 10 lines; full output: /tmp/full.log ...]
      line 9
      line 10"
    `);
    expect(result).toMatchObject({
      kept: "head+tail",
      truncatedBy: "lines",
      droppedLines: 6,
      droppedBytes: 42,
    });
  });

  test("head+tail by bytes never exceeds the byte budget", () => {
    const text = numbered(5000);
    const result = truncateHeadTail(text, { maxBytes: 1000 });
    expect(Buffer.byteLength(result.content)).toBeLessThanOrEqual(1000);
    expect(result.truncatedBy).toBe("bytes");
    expect(result.content.startsWith("line 1\n")).toBe(true);
    expect(result.content.endsWith("line 5000")).toBe(true);
  });

  test("a single line over the budget is cut (head keeps its start, tail its end)", () => {
    const line = `${"a".repeat(5000)}${"z".repeat(5000)}`;
    const head = truncateHead(line, { maxBytes: 100 });
    expect(head.content).toBe("a".repeat(100));
    expect(head.lineCut).toBe(true);
    const both = truncateHeadTail(line, { maxBytes: 200 });
    expect(both.content.startsWith("a")).toBe(true);
    expect(both.content.endsWith("z")).toBe(true);
    expect(Buffer.byteLength(both.content)).toBeLessThanOrEqual(200);
  });

  test("multi-byte characters are never split", () => {
    const result = truncateHead("é".repeat(100), { maxBytes: 21 });
    expect(result.content).toBe("é".repeat(10));
  });

  test("truncateLine cuts and counts", () => {
    expect(truncateLine("abcdef", 4)).toEqual({ text: "abcd... [line cut: 2 more characters]", cut: true });
    expect(truncateLine("abc", 4)).toEqual({ text: "abc", cut: false });
  });

  test("the head+tail buffer keeps both ends in bounded memory", () => {
    const buffer = createHeadTailBuffer(10);
    for (let i = 0; i < 1000; i++) buffer.write(Buffer.from(`${i % 10}`));
    buffer.write(Buffer.from("END"));
    const { head, tail } = buffer.parts();
    expect(head.toString()).toBe("01234");
    expect(tail.toString()).toBe("89END");
    expect(buffer.totalBytes).toBe(1003);
    expect(buffer.droppedBytes).toBe(993);
    expect(buffer.toString()).toBe("01234\n[... 993 bytes elided ...]\n89END");
  });
});
