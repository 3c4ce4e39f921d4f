/**
 * A loopback fake of the few GitHub REST endpoints the action uses: issue comments (list with
 * Link-header pagination, create, update; each comment keeps the history of its bodies), a
 * collaborator's permission, the token's own user (`GET /user`: refused as for GITHUB_TOKEN unless
 * `tokenLogin` is set; GraphQL `viewer` answers for either kind of token), commits, pull requests
 * and their reviews (pulls.ts), with fault injection (any status, `retry-after`, for a number of
 * matching requests). Starts on 127.0.0.1, port 0.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  type FakePull,
  type FakeReview,
  type FakeReviewComment,
  FIXTURE_PULL,
  pullResponse,
  refuseReview,
} from "./pulls.ts";

export { type FakePull, type FakeReview, type FakeReviewComment, FIXTURE_PULL } from "./pulls.ts";

export type Role = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: { login: string; type: "User" | "Bot" };
  html_url: string;
  /** Every body the comment had, in order (created, then each edit), with the time it was set (Date.now()). */
  history: Array<{ body: string; at: number }>;
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
  /** The login the token belongs to (a personal token); unset: an installation token writing as `appLogin`. */
  tokenLogin?: string;
  /** Who an installation token writes as (GraphQL `viewer`). Default: github-actions[bot]. */
  appLogin?: string;
  /** Whether GraphQL answers `viewer` (as GitHub does for both kinds of token). Default: true. */
  graphqlViewer?: boolean;
  /** Pull requests by number, for `GET /pulls/:n` and reviews. Default: `[FIXTURE_PULL]` (#42 of the fixtures). */
  pulls?: FakePull[];
  /** Commit messages by sha, for `GET /commits/:sha`. */
  commits?: Record<string, string>;
  faults?: FakeFault[];
}

export interface FakeGitHub {
  /** Base URL of the API, e.g. http://127.0.0.1:PORT, for GITHUB_API_URL. */
  url: string;
  comments: FakeComment[];
  reviews: FakeReview[];
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
  const reviews: FakeReview[] = [];
  const requests: RecordedRequest[] = [];
  const faults = [...(options.faults ?? [])];
  const writer = options.tokenLogin ?? options.appLogin ?? "github-actions[bot]";
  let nextId = 1000;
  const userOf = (login: string) => ({
    login,
    type: login.endsWith("[bot]") ? ("Bot" as const) : ("User" as const),
  });
  const addComment = (issueNumber: number, body: string, login: string): FakeComment => {
    const id = nextId++;
    const comment = {
      id,
      issueNumber,
      body,
      user: userOf(login),
      html_url: `https://github.com/${owner}/${repo}/pull/${issueNumber}#issuecomment-${id}`,
      history: [{ body, at: Date.now() }],
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
      return send(201, addComment(Number(m[1]), body, writer));
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
      comment.history.push({ body, at: Date.now() });
      return send(200, comment);
    }
    if (url.pathname === "/user" && record.method === "GET") {
      if (options.tokenLogin === undefined)
        return send(403, { message: "Resource not accessible by integration" });
      return send(200, { login: options.tokenLogin, type: "User" });
    }
    if (url.pathname === "/graphql" && record.method === "POST") {
      const query = String((record.body as { query?: unknown } | undefined)?.query ?? "");
      if (options.graphqlViewer === false || !/\bviewer\b/.test(query)) {
        return send(200, { data: null, errors: [{ message: "Resource not accessible by integration" }] });
      }
      return send(200, { data: { viewer: { login: writer } } });
    }
    m = new RegExp(`^${base}/commits/([0-9a-f]+)$`).exec(url.pathname);
    if (m && record.method === "GET") {
      const message = options.commits?.[m[1] ?? ""];
      if (message === undefined) return send(422, { message: `No commit found for SHA: ${m[1]}` });
      return send(200, { sha: m[1], commit: { message } });
    }
    m = new RegExp(`^${base}/pulls/(\\d+)(/reviews)?$`).exec(url.pathname);
    if (m) {
      const pull = (options.pulls ?? [FIXTURE_PULL]).find((p) => p.number === Number(m?.[1]));
      if (!pull) return send(404, { message: "Not Found" });
      if (!m[2] && record.method === "GET") return send(200, pullResponse(pull, owner, repo));
      if (m[2] && record.method === "POST") {
        const input = (record.body ?? {}) as Record<string, unknown>;
        const reviewComments = Array.isArray(input.comments) ? (input.comments as FakeReviewComment[]) : [];
        const refused = refuseReview(pull, reviewComments);
        if (refused) return send(422, { message: refused });
        const body = typeof input.body === "string" ? input.body : "";
        if (body.length > MAX_BODY || reviewComments.some((c) => c.body.length > MAX_BODY))
          return send(422, { message: "Body is too long (maximum is 65536 characters)" });
        const id = nextId++;
        const review: FakeReview = {
          id,
          pullNumber: pull.number,
          body,
          event: typeof input.event === "string" ? input.event : "PENDING",
          ...(typeof input.commit_id === "string" && { commitId: input.commit_id }),
          comments: reviewComments,
          user: userOf(writer),
          html_url: `https://github.com/${owner}/${repo}/pull/${pull.number}#pullrequestreview-${id}`,
        };
        reviews.push(review);
        return send(200, { id, body, state: "COMMENTED", html_url: review.html_url, user: review.user });
      }
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
    reviews,
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
