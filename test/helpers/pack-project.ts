/**
 * What a user of the published package gets: the repository as a clean clone has it (tracked and
 * unignored files, no lib/), packed with `npm pack` (so `prepack` must build whatever the package
 * needs), then installed into a fresh project offline: the dependencies come from npm's cache,
 * which `npm ci` filled; nothing is fetched.
 *
 * The project's install is `npm ci` from a lockfile naming the tarball and, for its dependencies,
 * the entries of this repository's lockfile (the package pins exact versions, so they are the ones
 * a user's `npm install` resolves). `npm install <tarball>` itself cannot run offline since npm
 * 11.19: it asks for each dependency's full registry document, and `npm ci` caches only the short
 * one it reads.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./cli.ts";

const exec = promisify(execFile);

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a program to its end; never rejects for a non-zero exit (the result says it). */
export async function command(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<CommandResult> {
  const started = performance.now();
  const child = exec(file, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    maxBuffer: 64 * 1024 * 1024,
    timeout: options.timeoutMs ?? 240_000,
  });
  if (options.input !== undefined) child.child.stdin?.end(options.input);
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr, ms: performance.now() - started };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === "number" ? failed.code : -1,
      stdout: failed.stdout ?? "",
      stderr: `${failed.stderr ?? ""}${typeof failed.code === "string" ? `\n${failed.code}` : ""}`,
      ms: performance.now() - started,
    };
  }
}

/**
 * The environment of every npm and node run here: the Node running the tests first on PATH (the
 * package's bin is `#!/usr/bin/env node`), npm kept offline, no colours.
 */
export function packEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // A parent `npm test` passes its own state down (its prefix, package, lifecycle): not for a
    // project elsewhere. The cache stays: the offline install reads it.
    if (!key.startsWith("npm_") || key === "npm_config_cache") env[key] = value;
  }
  return {
    ...env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
    npm_config_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    NO_COLOR: "1",
    ...extra,
  };
}

/** Copies the files a clone of the repository would have (as they are now) into `dest`. */
export async function copyAsClone(dest: string): Promise<void> {
  const { stdout } = await exec("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  // A tracked file deleted in the work tree is not in a clone of the work tree either.
  const files = stdout.split("\0").filter((file) => file !== "" && existsSync(path.join(ROOT, file)));
  await mkdir(dest, { recursive: true });
  const tar = await command("bash", ["-c", 'tar --null -T - -cf - | tar -xf - -C "$1"', "_", dest], {
    cwd: ROOT,
    input: `${files.join("\0")}\0`,
  });
  if (tar.code !== 0) throw new Error(`copying the repository failed: ${tar.stderr}`);
  // The build's tools (tsc, rolldown) as `npm ci` installed them.
  await symlink(path.join(ROOT, "node_modules"), path.join(dest, "node_modules"));
}

/** `npm pack` in `clone`; returns the tarball's path. */
export async function pack(clone: string, destination: string): Promise<{ tarball: string; ms: number }> {
  const result = await command("npm", ["pack", "--pack-destination", destination, "--silent"], {
    cwd: clone,
    env: packEnv(),
  });
  if (result.code !== 0)
    throw new Error(`npm pack failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  const name = result.stdout.trim().split("\n").at(-1) ?? "";
  const tarball = path.join(destination, name);
  if (!name.endsWith(".tgz") || !existsSync(tarball))
    throw new Error(`npm pack printed no tarball: ${result.stdout}`);
  return { tarball, ms: result.ms };
}

interface LockEntry {
  dev?: boolean;
  [field: string]: unknown;
}

/** A new project (`type: module`) with the tarball installed offline; returns the install's time. */
export async function installInto(project: string, tarball: string): Promise<number> {
  await mkdir(project, { recursive: true });
  const spec = `file:${path.relative(project, tarball)}`;
  const manifest = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const repoLock = JSON.parse(await readFile(path.join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, unknown> = {
    "": { name: "my-project", dependencies: { "agent-run": spec } },
    "node_modules/agent-run": {
      version: manifest.version,
      resolved: spec,
      integrity: `sha512-${createHash("sha512")
        .update(await readFile(tarball))
        .digest("base64")}`,
      license: manifest.license,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
      engines: manifest.engines,
    },
  };
  // The package's dependencies are this repository's production ones, at the same places.
  for (const [where, entry] of Object.entries(repoLock.packages)) {
    if (where !== "" && !entry.dev) packages[where] = entry;
  }
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  await writeFile(
    path.join(project, "package.json"),
    json({ name: "my-project", private: true, type: "module", dependencies: { "agent-run": spec } }),
  );
  await writeFile(
    path.join(project, "package-lock.json"),
    json({ name: "my-project", lockfileVersion: 3, requires: true, packages }),
  );
  const result = await command("npm", ["ci"], { cwd: project, env: packEnv() });
  if (result.code !== 0) {
    throw new Error(
      `npm ci --offline of the packed project failed (${result.code}); npm's cache lacks a dependency? run npm ci first\n${result.stderr}`,
    );
  }
  return result.ms;
}

/**
 * The user's own dev tools, from this repository's node_modules: TypeScript and Node's types.
 * Linked, not installed: they are not the package's dependencies.
 */
export async function linkDevTools(project: string): Promise<void> {
  const types = path.join(project, "node_modules", "@types");
  await mkdir(types, { recursive: true });
  if (!(await readdir(types)).includes("node")) {
    await symlink(path.join(ROOT, "node_modules", "@types", "node"), path.join(types, "node"));
  }
}

/** The fenced blocks of a Markdown file in one language, in order. */
export function fencedBlocks(markdown: string, language: string): string[] {
  const blocks: string[] = [];
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  for (const match of markdown.matchAll(fence)) blocks.push(match[1] ?? "");
  return blocks;
}
