/**
 * The last pass over the PR comment before it is posted, for text a model or a pull request put
 * there: no `@mention` pings anyone, no closing keyword (`fixes #1`, `closes org/repo#2`) links
 * or closes an issue, no link or image leads to a host other than GitHub's, no raw HTML beyond
 * the summary's own `<details>` / `<summary>`. Code spans and fenced blocks are left as they are:
 * GitHub interprets none of these inside them, and the patch shown there must stay copyable.
 */

const ZWSP = "\u200b";
const ZWJ = "\u200d";

/** Hosts links and images may point to: github.com and its subdomains, plus `extraHosts`. */
export function isAllowedHost(host: string, extraHosts: readonly string[] = []): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return [...extraHosts.map((x) => x.toLowerCase()), "github.com"].some(
    (allowed) => h === allowed || h.endsWith(`.${allowed}`),
  );
}

/**
 * Neutralises mentions, closing keywords, links to unknown hosts and raw HTML in `markdown`
 * outside code. `extraHosts`: hosts allowed besides github.com (the run's server, e.g. a GHES host).
 */
export function neutralizeComment(markdown: string, extraHosts: readonly string[] = []): string {
  const lines = markdown.split("\n");
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of lines) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      out.push(line);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
      }
      continue;
    }
    if (marker) {
      fence = marker;
      out.push(line);
      continue;
    }
    out.push(outsideCodeSpans(line, (text) => neutralizeText(text, extraHosts)));
  }
  return out.join("\n");
}

/** Applies `fix` to the parts of `line` outside inline code spans. */
function outsideCodeSpans(line: string, fix: (text: string) => string): string {
  let out = "";
  let i = 0;
  let plain = "";
  while (i < line.length) {
    // A backslash-escaped backtick is literal text (CommonMark): it opens no code span.
    if (line[i] === "`" && trailingBackslashes(plain) % 2 === 1) {
      plain += "`";
      i++;
      continue;
    }
    if (line[i] === "`") {
      const run = /^`+/.exec(line.slice(i))?.[0] ?? "`";
      const close = findRun(line, i + run.length, run.length);
      if (close !== -1) {
        out += fix(plain) + line.slice(i, close + run.length);
        plain = "";
        i = close + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    plain += line[i];
    i++;
  }
  return out + fix(plain);
}

function trailingBackslashes(text: string): number {
  let n = 0;
  while (text[text.length - 1 - n] === "\\") n++;
  return n;
}

function findRun(line: string, from: number, length: number): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] !== "`") continue;
    let j = i;
    while (line[j] === "`") j++;
    if (j - i === length) return i;
    i = j;
  }
  return -1;
}

const URL_PATTERN = /\b(?:https?|ftp):\/\/[^\s<>`"')\]]+|\bwww\.[^\s<>`"')\]]+/gi;
/** An inline link or image: `[label](dest "title")`, the destination bare or in `<…>`. */
const MARKDOWN_LINK =
  /(!?)\[([^\]\n]*)\]\(\s*(?:<([^>\n]*)>|([^)\s]+))(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
/** A link reference definition at the start of a line: `[label]: dest`, the destination bare or in `<…>`. */
const REFERENCE_DEFINITION = /^( {0,3}\[[^\]\n]+\]:[ \t]*)(<[^>\n]*>|\S+)/;
/** A destination a browser resolves against another host: `//host/…`, also spelt with backslashes (`/\\host`). */
const PROTOCOL_RELATIVE = /^[\\/]{2}/;
const CLOSING_KEYWORD =
  /\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(\s*:?\s+)(?=(?:[\w.-]+\/[\w.-]+)?#\d|https?:\/\/\S+\/(?:issues|pull)\/\d)/gi;
const OWN_TAGS = /^<\/?(?:details|summary)>|^<details open>/i;

function neutralizeText(text: string, extraHosts: readonly string[]): string {
  let out = text.replace(
    MARKDOWN_LINK,
    (whole, bang: string, label: string, angled: string | undefined, bare: string | undefined) => {
      const host = hostOf(angled ?? bare ?? "");
      if (host === undefined || isAllowedHost(host, extraHosts)) return whole;
      return bang ? `[image from ${host} removed]` : `${label} (link to ${host} removed)`;
    },
  );
  // A definition's destination with a scheme is caught by URL_PATTERN below; a protocol-relative
  // one becomes a code span here, so neither the definition nor the links using it lead anywhere.
  out = out.replace(REFERENCE_DEFINITION, (whole, head: string, dest: string) => {
    const url = dest.startsWith("<") ? dest.slice(1, -1) : dest;
    if (!PROTOCOL_RELATIVE.test(url)) return whole;
    const host = hostOf(url);
    return host === undefined || isAllowedHost(host, extraHosts) ? whole : `${head}\`${url}\``;
  });
  out = out.replace(URL_PATTERN, (url) => {
    const host = hostOf(url);
    return host !== undefined && isAllowedHost(host, extraHosts) ? url : `\`${url}\``;
  });
  out = out.replace(/<(?=[A-Za-z/!?])/g, (lt, offset: number) =>
    OWN_TAGS.test(out.slice(offset)) ? lt : "&lt;",
  );
  out = out.replace(/(^|[^\w@`])@(?=[A-Za-z0-9])/g, `$1@${ZWSP}`);
  out = out.replace(CLOSING_KEYWORD, (_whole, keyword: string, gap: string) => {
    return `${keyword[0]}${ZWJ}${keyword.slice(1)}${gap}`;
  });
  return out;
}

/**
 * The host of an absolute URL, a `www.` address or a protocol-relative one (`//host/…`, which the
 * page's scheme completes); undefined for relative links and anchors.
 */
function hostOf(url: string): string | undefined {
  const withScheme = /^www\./i.test(url)
    ? `https://${url}`
    : PROTOCOL_RELATIVE.test(url)
      ? `https:${url.replace(/\\/g, "/")}`
      : url;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(withScheme)) return undefined;
  try {
    const parsed = new URL(withScheme);
    // javascript:, data: and friends have no host: never a link worth keeping.
    return parsed.host === "" ? parsed.protocol : parsed.hostname;
  } catch {
    return "an unreadable address";
  }
}
