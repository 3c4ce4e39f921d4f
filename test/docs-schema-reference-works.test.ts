import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "./helpers/cli.ts";

/**
 * Issue 16: every `$schema=` line in the README, the docs and the examples resolves to the task
 * schema: a path relative to its file, or `./node_modules/agent-run/…`, which the package ships
 * (its `files` and `exports` hold it). No placeholder, no URL that could drift from the version.
 */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (name === "node_modules" || name === ".agent-run") return [];
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

test("every $schema reference resolves to schema/task.schema.json", () => {
  const files = [
    path.join(ROOT, "README.md"),
    ...filesUnder(path.join(ROOT, "docs")),
    ...filesUnder(path.join(ROOT, "examples")),
  ];
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    name: string;
    files: string[];
    exports: Record<string, unknown>;
  };
  const references: string[] = [];
  for (const file of files.filter((f) => /\.(md|ya?ml)$/.test(f))) {
    for (const match of readFileSync(file, "utf8").matchAll(/\$schema=(\S+?)(?=[`\s)]|$)/gm)) {
      const ref = match[1]!;
      if (ref.startsWith("<")) continue;
      references.push(`${path.relative(ROOT, file)}: ${ref}`);
      expect(ref, file).not.toMatch(/OWNER|^https?:/);
      const prefix = `./node_modules/${pkg.name}/`;
      const target = ref.startsWith(prefix)
        ? path.join(ROOT, ref.slice(prefix.length))
        : path.resolve(path.dirname(file), ref);
      expect(path.relative(ROOT, target), `${file}: ${ref}`).toBe("schema/task.schema.json");
      expect(statSync(target).isFile()).toBe(true);
    }
  }
  expect(references.length).toBeGreaterThanOrEqual(2);
  expect(pkg.files).toContain("schema");
  expect(pkg.exports).toHaveProperty("./schema/task.schema.json");
});
