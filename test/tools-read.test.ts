import { describe, expect, test } from "vitest";
import { createReadTool, type ReadImage } from "../src/tools/index.ts";
import { makeWorkspace, run, textOf } from "./tools-support.ts";

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  "base64",
);

const lines = (count: number) => Array.from({ length: count }, (_, i) => `row ${i + 1}`).join("\n");

describe("read", () => {
  test("numbers lines and honours offset and limit", async () => {
    const root = await makeWorkspace({ "f.txt": `${lines(30)}\n` });
    const result = await run(createReadTool(root), { path: "f.txt", offset: 9, limit: 3 });
    expect(textOf(result)).toBe(
      " 9\trow 9\n10\trow 10\n11\trow 11\n\n[Showing lines 9-11 of 30. Use offset=12 to continue.]",
    );
    expect(result.details).toMatchObject({ kind: "text", startLine: 9, endLine: 11, totalLines: 30 });
  });

  test("stops at the line budget and says where to continue", async () => {
    const root = await makeWorkspace({ "f.txt": lines(50) });
    const result = await run(createReadTool(root, { maxLines: 20 }), { path: "f.txt" });
    expect(result.details.endLine).toBe(20);
    expect(result.details.truncation).toEqual({ truncatedBy: "lines", nextOffset: 21 });
    expect(textOf(result)).toContain(
      "[Showing lines 1-20 of 50 (the 20-line limit); 30 more lines. Use offset=21 to continue.]",
    );
  });

  test("stops at the byte budget", async () => {
    const root = await makeWorkspace({ "f.txt": lines(5000) });
    const result = await run(createReadTool(root, { maxBytes: 1000 }), { path: "f.txt" });
    expect(Buffer.byteLength(textOf(result))).toBeLessThan(1200);
    expect(result.details.truncation?.truncatedBy).toBe("bytes");
  });

  test("cuts a single huge line", async () => {
    const root = await makeWorkspace({ "min.js": `${"x".repeat(1_000_000)}\nshort\n` });
    const result = await run(createReadTool(root, { maxLineChars: 100 }), { path: "min.js" });
    expect(textOf(result)).toBe(
      `1\t${"x".repeat(100)}... [line cut]\n2\tshort\n\n[Line 1 was cut at 100 characters; use bash (e.g. cut -c) to see more.]`,
    );
    expect(result.details.cutLines).toEqual([1]);
  });

  test("shows CRLF files without carriage returns", async () => {
    const root = await makeWorkspace({ "w.txt": "a\r\nb\r\n" });
    expect(textOf(await run(createReadTool(root), { path: "w.txt" }))).toBe("1\ta\n2\tb");
  });

  test("an offset past the end is an error naming the line count", async () => {
    const root = await makeWorkspace({ "f.txt": lines(5) });
    await expect(run(createReadTool(root), { path: "f.txt", offset: 9 })).rejects.toThrow(
      "offset 9 is beyond the end of f.txt (5 lines)",
    );
  });

  test("binary files are described, not dumped", async () => {
    const root = await makeWorkspace({ "blob.bin": Buffer.from([0, 1, 2, 3, 255, 0, 7]) });
    const result = await run(createReadTool(root), { path: "blob.bin" });
    expect(textOf(result)).toBe(
      "blob.bin is a binary file (7 B); not shown. Use bash (file, xxd, od) to inspect it.",
    );
    expect(result.details.kind).toBe("binary");
  });

  test("images come back as image content", async () => {
    const root = await makeWorkspace({ "pixel.png": PNG_1X1 });
    const result = await run(createReadTool(root), { path: "pixel.png" });
    expect(result.content[1]).toEqual({
      type: "image",
      mimeType: "image/png",
      data: PNG_1X1.toString("base64"),
    });
    expect(result.details).toMatchObject({ kind: "image", mimeType: "image/png" });
  });

  test("images go through the imageProcessor when autoResizeImages is on", async () => {
    const root = await makeWorkspace({ "pixel.png": PNG_1X1 });
    const seen: ReadImage[] = [];
    const imageProcessor = (image: ReadImage): ReadImage => {
      seen.push(image);
      return { data: Buffer.from("resized"), mimeType: "image/jpeg" };
    };
    const result = await run(createReadTool(root, { autoResizeImages: true, imageProcessor }), {
      path: "pixel.png",
    });
    expect(seen).toHaveLength(1);
    expect(result.content[1]).toEqual({
      type: "image",
      mimeType: "image/jpeg",
      data: Buffer.from("resized").toString("base64"),
    });
    const off = await run(createReadTool(root, { autoResizeImages: false, imageProcessor }), {
      path: "pixel.png",
    });
    expect(seen).toHaveLength(1);
    expect(off.content[1]).toMatchObject({ mimeType: "image/png" });
  });

  test("a folder is refused with a hint", async () => {
    const root = await makeWorkspace({ "src/a.ts": "" });
    await expect(run(createReadTool(root), { path: "src" })).rejects.toThrow(
      '"src" is a folder; use ls to list it.',
    );
  });
});
