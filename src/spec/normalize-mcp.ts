import { isSecretName } from "../system/env.ts";
import type { createFieldChecks, Path } from "./field-checks.ts";
import type { RawMcpServer, RawTaskSpec } from "./schema.ts";
import { showText } from "./show-text.ts";
import { closest } from "./suggest.ts";
import { parseTemplate } from "./template.ts";
import {
  DEFAULT_MCP_CALL_TIMEOUT_MS,
  DEFAULT_MCP_START_TIMEOUT_MS,
  type HookMatch,
  type McpServerSpec,
} from "./types.ts";

type FieldChecks = ReturnType<typeof createFieldChecks>;

const STDIO_ONLY = ["args", "env", "cwd", "network"] as const;
const HTTP_ONLY = ["headers"] as const;

/** Headers that carry credentials whatever their value looks like. */
const CREDENTIAL_HEADERS = new Set(["authorization", "proxy-authorization", "cookie"]);

/**
 * Whether a header's value is a credential: `Authorization`, `Proxy-Authorization`, `Cookie`, or a
 * name the environment rule calls secret once dashes are underscores (`X-Api-Key`, `X-Auth-Token`).
 */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase()) || isSecretName(name.replace(/-/g, "_"));
}

/**
 * The spec's `mcp_servers`, in the order written: `{{ vars.X }}` and `{{ env.X }}` substituted in
 * `args`, `env`, `url` and `headers`, durations in ms, and the values the server gets but nobody
 * else may see gathered in `secrets` (see `McpServerSpec.secrets`). Problems go through `checks`.
 */
export function normalizeMcpServers(
  raw: RawTaskSpec["mcp_servers"],
  checks: FieldChecks,
  env: NodeJS.ProcessEnv,
  vars: Record<string, string>,
): McpServerSpec[] {
  const servers: McpServerSpec[] = [];
  for (const [name, server] of Object.entries(raw ?? {})) {
    const at: Path = ["mcp_servers", name];
    const secrets: string[] = [];
    const value = (text: string, path: Path, secretWhole: boolean): string => {
      const rendered = checks.template(text, { path }, ["vars", "env"], false).text;
      if (secretWhole) secrets.push(rendered);
      secrets.push(...secretReferences(text, env, vars));
      return rendered;
    };
    const common = {
      name,
      ...(server.tools && { tools: uniqueTools(server.tools, [...at, "tools"], checks) }),
      timeoutMs:
        checks.duration(server.timeout, [...at, "timeout"], DEFAULT_MCP_CALL_TIMEOUT_MS) ??
        DEFAULT_MCP_CALL_TIMEOUT_MS,
      startTimeoutMs:
        checks.duration(server.start_timeout, [...at, "start_timeout"], DEFAULT_MCP_START_TIMEOUT_MS) ??
        DEFAULT_MCP_START_TIMEOUT_MS,
      secrets,
    };
    if (server.command !== undefined) {
      misplaced(server, HTTP_ONLY, at, "HTTP servers (with `url`)", checks);
      const args = (server.args ?? []).map((arg, i) => value(arg, [...at, "args", i], false));
      const serverEnv: Record<string, string> = {};
      for (const [key, text] of Object.entries(server.env ?? {})) {
        serverEnv[key] = value(text, [...at, "env", key], isSecretName(key));
      }
      servers.push({
        ...common,
        transport: "stdio",
        command: server.command,
        args,
        env: serverEnv,
        ...(server.cwd !== undefined && { cwd: server.cwd }),
        network: server.network ?? false,
        display: [server.command, ...(server.args ?? [])].join(" "),
      });
    } else if (server.url !== undefined) {
      misplaced(server, STDIO_ONLY, at, "stdio servers (with `command`)", checks);
      const url = value(server.url, [...at, "url"], false);
      if (!isHttpUrl(url)) {
        checks.report({ path: [...at, "url"] }, `bad URL ${showText(server.url)}`, {
          expected: "an http:// or https:// URL",
        });
      }
      const headers: Record<string, string> = {};
      for (const [key, text] of Object.entries(server.headers ?? {})) {
        headers[key] = value(text, [...at, "headers", key], isCredentialHeader(key));
      }
      servers.push({ ...common, transport: "http", url, headers, display: server.url });
    }
  }
  return servers;
}

/**
 * Hook rules naming MCP tools must name a configured server: `mcp__gihtub__*` is a typo that would
 * silently guard nothing. Patterns whose server part has a wildcard are taken as written.
 */
export function checkMcpToolPatterns(
  rules: readonly { index: number; match?: HookMatch }[],
  hook: string,
  servers: readonly McpServerSpec[],
  checks: FieldChecks,
): void {
  const names = servers.map((server) => server.name);
  for (const rule of rules) {
    (rule.match?.tools ?? []).forEach((pattern, i) => {
      if (!pattern.startsWith("mcp__")) return;
      const server = pattern.slice(5).split("__", 1)[0] ?? "";
      if (/[*?]/.test(server) || names.includes(server)) return;
      const single = rule.match?.tools?.length === 1;
      const path: Path = ["hooks", hook, rule.index, "match", "tool", ...(single ? [] : [i])];
      const near = closest(server, names);
      checks.report({ path }, `no MCP server ${showText(server)} in mcp_servers`, {
        expected: names.length > 0 ? `one of ${names.join(", ")}` : "a server configured under mcp_servers",
        ...(near && { suggestion: `'mcp__${near}__${pattern.slice(5 + server.length + 2)}'` }),
      });
    });
  }
}

/** Values of `{{ env.X }}` and `{{ vars.X }}` references in `text` whose name looks like a credential. */
function secretReferences(text: string, env: NodeJS.ProcessEnv, vars: Record<string, string>): string[] {
  const out: string[] = [];
  for (const part of parseTemplate(text, ["vars", "env"]).parts) {
    if (typeof part === "string" || !isSecretName(part.name)) continue;
    const value = part.ns === "env" ? env[part.name] : vars[part.name];
    if (value !== undefined) out.push(value);
  }
  return out;
}

function misplaced(
  server: RawMcpServer,
  keys: readonly (keyof RawMcpServer)[],
  at: Path,
  owner: string,
  checks: FieldChecks,
): void {
  for (const key of keys) {
    if (server[key] === undefined) continue;
    checks.report({ path: [...at, key] }, `'${key}' is only for ${owner}`, {}, true);
  }
}

function uniqueTools(tools: string[], at: Path, checks: FieldChecks): string[] {
  const seen = new Map<string, number>();
  tools.forEach((tool, i) => {
    const first = seen.get(tool);
    if (first !== undefined)
      checks.report({ path: [...at, i] }, `tool '${tool}' is listed twice (first at tools[${first}])`);
    else seen.set(tool, i);
  });
  return [...seen.keys()];
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
