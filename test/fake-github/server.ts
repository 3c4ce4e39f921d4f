/**
 * A loopback fake of the few GitHub REST endpoints the action uses: issue comments (list with
 * Link-header pagination, create, update), a collaborator's permission and the token's own user
 * (`GET /user`: refused as for GITHUB_TOKEN unless `tokenLogin` is set), with fault injection
 * (any status, `retry-after`, for a number of matching requests). Starts on 127.0.0.1, port 0.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Role = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: { login: string; type: "User" | "Bot" };
  html_url: string;
}

export interface FakeFault {
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Matches the request path (without query): a substring or a RegExp. */
  path: string | RegExp;
  status: number;
  /** `retry-after` header value, in seconds. */
  retryAfter?: number;
  headers?: Record<string, string>;
  /** How many matching requests fail. Default: every one. */
  times?: number;
  message?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization?: string;
  body?: unknown;
  status: number;
}

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  /** Login → role. Logins absent here get "read" (as on a public repository). */
  roles?: Record<string, Role>;
  /** Comments already there; `login` defaults to "someone" (a login ending in `[bot]` is a Bot). */
  comments?: Array<{ issueNumber: number; body: string; login?: string }>;
  /** The login the token belongs to (a personal token); unset: an installation token writing as github-actions[bot]. */
  tokenLogin?: string;
  faults?: FakeFault[];
}

export interface FakeGitHub {
  /** Base URL of the API, e.g. http://127.0.0.1:PORT, for GITHUB_API_URL. */
  url: string;
  comments: FakeComment[];
  requests: RecordedRequest[];
  faults: FakeFault[];
  close(): Promise<void>;
}

/** GitHub's own limit; longer bodies get a 422 as on github.com. */
const MAX_BODY = 65_536;
const LEGACY_PERMISSION: Record<Role, string> = {
  admin: "admin",
  maintain: "write",
  write: "write",
  triage: "read",
  read: "read",
  none: "none",
};

export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const owner = options.owner ?? "octo-org";
  const repo = options.repo ?? "octo-repo";
  const comments: FakeComment[] = [];
  const requests: RecordedRequest[] = [];
  const faults = [...(options.faults ?? [])];
  let nextId = 1000;
  const addComment = (issueNumber: number, body: string, login: string): FakeComment => {
    const id = nextId++;
    const comment = {
      id,
      issueNumber,
      body,
      user: { login, type: login.endsWith("[bot]") ? ("Bot" as const) : ("User" as const) },
      html_url: `https://github.com/${owner}/${repo}/pull/${issueNumber}#issuecomment-${id}`,
    };
    comments.push(comment);
    return comment;
  };
  for (const c of options.comments ?? []) addComment(c.issueNumber, c.body, c.login ?? "someone");

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      body: text ? safeJson(text) : undefined,
      status: 0,
    };
    requests.push(record);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
      res.end(JSON.stringify(body));
    };

    const fault = faults.find(
      (f) =>
        (f.times === undefined || f.times > 0) &&
        (f.method === undefined || f.method.toUpperCase() === record.method) &&
        (typeof f.path === "string" ? url.pathname.includes(f.path) : f.path.test(url.pathname)),
    );
    if (fault) {
      if (fault.times !== undefined) fault.times--;
      const headers: Record<string, string> = { ...fault.headers };
      if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
      return send(fault.status, { message: fault.message ?? `fault ${fault.status}` }, headers);
    }
    if (!req.headers.authorization) return send(401, { message: "Requires authentication" });

    const base = `/repos/${owner}/${repo}`;
    let m = new RegExp(`^${base}/issues/(\\d+)/comments$`).exec(url.pathname);
    if (m && record.method === "GET") {
      const issueNumber = Number(m[1]);
      const perPage = Math.min(100, Number(url.searchParams.get("per_page") ?? 30));
      const page = Math.max(1, Number(url.searchParams.get("page") ?? 1));
      const all = comments.filter((c) => c.issueNumber === issueNumber);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const links: string[] = [];
      const link = (p: number, rel: string) =>
        `<http://${req.headers.host}${url.pathname}?per_page=${perPage}&page=${p}>; rel="${rel}"`;
      if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
      if (page > 1) links.push(link(1, "first"), link(page - 1, "prev"));
      const headers: Record<string, string> = links.length ? { link: links.join(", ") } : {};
      return send(200, all.slice((page - 1) * perPage, page * perPage), headers);
    }
    if (m && record.method === "POST") {
      const body = bodyOf(record.body);
      if (body === undefined) return send(422, { message: "body is missing" });
      if (body.length > MAX_BODY)
        return send(422, { message: "Body is too long (maximum is 65536 characters)" });
      return send(201, addComment(Number(m[1]), body, options.tokenLogin ?? "github-actions[bot]"));
    }
    m = new RegExp(`^${base}/issues/comments/(\\d+)$`).exec(url.pathname);
    if (m && record.method === "PATCH") {
      const comment = comments.find((c) => c.id === Number(m?.[1]));
      if (!comment) return send(404, { message: "Not Found" });
      const body = bodyOf(record.body);
      if (body === undefined) return send(422, { message: "body is missing" });
      if (body.length > MAX_BODY)
        return send(422, { message: "Body is too long (maximum is 65536 characters)" });
      comment.body = body;
      return send(200, comment);
    }
    if (url.pathname === "/user" && record.method === "GET") {
      if (options.tokenLogin === undefined)
        return send(403, { message: "Resource not accessible by integration" });
      return send(200, { login: options.tokenLogin, type: "User" });
    }
    m = new RegExp(`^${base}/collaborators/([^/]+)/permission$`).exec(url.pathname);
    if (m && record.method === "GET") {
      const login = decodeURIComponent(m[1] ?? "");
      const role = options.roles?.[login] ?? "read";
      return send(200, { permission: LEGACY_PERMISSION[role], role_name: role, user: { login } });
    }
    return send(404, { message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    comments,
    requests,
    faults,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function bodyOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const body = (value as Record<string, unknown>).body;
  return typeof body === "string" ? body : undefined;
}
