import { describe, expect, test } from "vitest";
import { describeTask, parseTask } from "../src/spec/index.ts";
import { parseSize } from "../src/spec/size.ts";
import { DEFAULT_CAPS, formatBytes } from "../src/system/caps.ts";

const BASE = "model: anthropic:claude-sonnet-4-5\nprompt: fix it\n";
const parse = (text: string) => parseTask(BASE + text, "task.yml", { env: {} });

describe("spec caps", () => {
  test("a spec without caps gets every default", () => {
    expect(parse("").spec.caps).toEqual({
      commandOutputBytes: 32 * 1024 ** 2,
      savedOutputBytes: 256 * 1024 ** 2,
      tmpBytes: 1024 ** 3,
      devShmBytes: 1024 ** 3,
      homeBytes: 1024 ** 3,
      processes: 1024,
      turnResultBytes: 4 * 1024 ** 2,
      turnToolCalls: 512,
    });
    expect(parse("").spec.caps).toEqual(DEFAULT_CAPS);
  });

  test("each key is read, sizes in either unit family or bytes, the rest kept at their defaults", () => {
    const caps = parse(
      "caps:\n  command_output: 8MiB\n  saved_outputs: 100MB\n  tmp_size: 512KiB\n  dev_shm_size: 2 GiB\n  home_size: 65536\n  processes: 64\n  turn_results: 1.5mib\n  turn_tool_calls: 10\n",
    ).spec.caps;
    expect(caps).toEqual({
      commandOutputBytes: 8 * 1024 ** 2,
      savedOutputBytes: 100_000_000,
      tmpBytes: 512 * 1024,
      devShmBytes: 2 * 1024 ** 3,
      homeBytes: 65536,
      processes: 64,
      turnResultBytes: 1.5 * 1024 ** 2,
      turnToolCalls: 10,
    });
    expect(parse("caps: { processes: 10 }\n").spec.caps).toEqual({ ...DEFAULT_CAPS, processes: 10 });
  });

  test("validate prints the caps in effect", () => {
    const text = describeTask(parse("caps: { tmp_size: 64MiB, processes: 100 }\n"));
    expect(text).toContain(
      "caps       command output 32MiB · saved outputs 256MiB · /tmp 64MiB · /dev/shm 1GiB · $HOME 1GiB · processes 100 · turn results 4MiB · tool calls per turn 512",
    );
  });

  test("sizes: units, case, and what is refused", () => {
    expect(parseSize("1KB")).toBe(1000);
    expect(parseSize("1kib")).toBe(1024);
    expect(parseSize("3B")).toBe(3);
    expect(parseSize("0B")).toBeUndefined();
    expect(parseSize("12")).toBeUndefined();
    expect(parseSize(1.5)).toBeUndefined();
    expect(formatBytes(32 * 1024 ** 2)).toBe("32MiB");
    expect(formatBytes(1536)).toBe("1536B");
    expect(formatBytes(3 * 1024)).toBe("3KiB");
  });
});
