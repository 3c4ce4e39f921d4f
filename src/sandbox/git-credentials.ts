/**
 * Credentials that git keeps in the workspace's own config, readable by anything that can read
 * `.git`: `http.<url>.extraheader` (actions/checkout's `AUTHORIZATION: basic …`) and passwords
 * inside remote URLs (`https://x-access-token:TOKEN@github.com/…`). The sandbox binds a copy without
 * them over each config file; the runner also adds the values to its redactor, for runs without
 * a sandbox.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";

/** One git config file and what it looks like with its credentials taken out. */
export interface ScrubbedGitConfig {
  /** Absolute path of the config file. */
  file: string;
  /** The file's text without credential lines; identical to the original when `secrets` is empty. */
  scrubbed: string;
  /** The credential values found (whole header values, tokens inside them, URL passwords). */
  secrets: string[];
}

/**
 * Finds the config files git reads for `workspace` (`.git/config`, a worktree's or submodule's
 * common dir `config` and `config.worktree`, of the workspace and of every repository above it,
 * e.g. the checkout when the workspace is its `packages/app`) and scrubs each. Never rejects: a
 * workspace in no repository gives [].
 */
export async function findGitCredentials(
  workspace: string,
  env: Record<string, string | undefined> = {},
): Promise<ScrubbedGitConfig[]> {
  const dirs = await gitDirs(workspace);
  const files = new Set<string>(userGitConfigFiles(env));
  for (const dir of dirs) {
    files.add(path.join(dir, "config"));
    files.add(path.join(dir, "config.worktree"));
  }
  const out: ScrubbedGitConfig[] = [];
  for (const file of files) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text !== undefined) out.push({ file, ...scrubGitConfig(text) });
  }
  return out;
}

/**
 * The system and global config files git reads besides the repository's, as `env` locates them:
 * `GIT_CONFIG_SYSTEM` and `/etc/gitconfig` (inside the sandbox git reads the latter whatever the
 * runner's variables), `GIT_CONFIG_GLOBAL`, `~/.gitconfig` and the XDG one. A self-hosted runner
 * often keeps a token there (`http.<url>.extraheader`, `url.<with a password>.insteadOf`), and
 * `/etc` is readable in the sandbox.
 */
function userGitConfigFiles(env: Record<string, string | undefined>): string[] {
  const absolute = (file: string | undefined) => (file && path.isAbsolute(file) ? [file] : []);
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : undefined;
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : undefined;
  return [
    "/etc/gitconfig",
    ...absolute(env.GIT_CONFIG_SYSTEM),
    ...absolute(env.GIT_CONFIG_GLOBAL),
    ...absolute(home && path.join(home, ".gitconfig")),
    ...absolute(xdg ? path.join(xdg, "git", "config") : home && path.join(home, ".config", "git", "config")),
  ];
}

/** Removes `extraheader` entries and URL passwords from a git config's text; returns what was removed. */
export function scrubGitConfig(text: string): { scrubbed: string; secrets: string[] } {
  const secrets: string[] = [];
  const lines = text.split("\n").map((line) => {
    // A URL with a password as a subsection: `[url "https://ci:TOKEN@host/"]` (with `insteadOf`).
    const section = /^(\s*\[[A-Za-z0-9.-]+\s+")([a-z][a-z0-9+.-]*:\/\/)([^/@\s"]+)@(.*)$/i.exec(line);
    if (section?.[3]) {
      const [user, password] = section[3].split(":", 2);
      if (password) secrets.push(decodeSafe(password), section[3]);
      else return line;
      return `${section[1]}${section[2]}${user}@${section[4]}`;
    }
    const entry = /^(\s*)([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!entry) return line;
    const [, indent = "", key = "", raw = ""] = entry;
    const value = unquote(raw);
    if (key.toLowerCase() === "extraheader") {
      secrets.push(...headerSecrets(value));
      return `${indent}# ${key} removed by agent-run's sandbox`;
    }
    const userinfo = /^([a-z][a-z0-9+.-]*:\/\/)([^/@\s]+)@/i.exec(value);
    if (userinfo?.[2]) {
      const [user, password] = userinfo[2].split(":", 2);
      if (password) secrets.push(decodeSafe(password));
      else if (user) secrets.push(decodeSafe(user));
      secrets.push(userinfo[2]);
      return `${indent}${key} = ${value.replace(userinfo[0], userinfo[1] ?? "")}`;
    }
    return line;
  });
  return { scrubbed: lines.join("\n"), secrets: [...new Set(secrets)].filter((s) => s.length > 0) };
}

function headerSecrets(value: string): string[] {
  const out = [value];
  const auth = /^\s*authorization\s*:\s*(\S+)\s+(\S+)/i.exec(value);
  const credential = auth?.[2];
  if (credential) {
    out.push(credential);
    if (auth[1]?.toLowerCase() === "basic") {
      const decoded = Buffer.from(credential, "base64").toString("utf8");
      out.push(decoded);
      const password = decoded.split(":").slice(1).join(":");
      if (password) out.push(password);
    }
  }
  return out;
}

/**
 * The git dirs (and their common dirs) of every repository that encloses `workspace`: its own
 * `.git` and each ancestor's (from the path as given and from its real path), so a workspace that
 * is a subfolder or a submodule of a checkout still finds the checkout's config. A filesystem walk
 * rather than `git rev-parse`, which refuses a repository owned by another user ("dubious
 * ownership") and would then miss it.
 */
async function gitDirs(workspace: string): Promise<string[]> {
  const out: string[] = [];
  const starts = new Set([
    path.resolve(workspace),
    await realpath(workspace).catch(() => path.resolve(workspace)),
  ]);
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      out.push(...(await gitDirsAt(dir)));
      if (path.dirname(dir) === dir) break;
    }
  }
  return out;
}

async function gitDirsAt(dir: string): Promise<string[]> {
  const dotGit = path.join(dir, ".git");
  const info = await stat(dotGit).catch(() => undefined);
  if (!info) return [];
  let gitDir = dotGit;
  if (info.isFile()) {
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(dotGit, "utf8").catch(() => ""));
    if (!pointer?.[1]) return [];
    gitDir = path.resolve(dir, pointer[1]);
  }
  const common = (await readFile(path.join(gitDir, "commondir"), "utf8").catch(() => "")).trim();
  return common ? [gitDir, path.resolve(gitDir, common)] : [gitDir];
}

function unquote(raw: string): string {
  return raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
