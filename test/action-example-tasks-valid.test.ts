import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { loadTask } from "../src/spec/index.ts";

const dir = path.join(import.meta.dirname, "../examples/tasks");
const files = (await readdir(dir)).filter((f) => f.endsWith(".yml")).sort();

describe("example task specs of the action's workflows", () => {
  test("the four the workflows reference exist", () => {
    expect(files).toEqual([
      "lint-autofix.yml",
      "long-refactor.yml",
      "package-task.yml",
      "pr-review-verdict.yml",
      "pr-review.yml",
    ]);
  });

  test.for(files)("%s is a valid task spec", async (file) => {
    await expect(loadTask(path.join(dir, file))).resolves.toBeDefined();
  });
});
