import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
} from "yaml";
import { errorText } from "../core/errors.ts";

/**
 * YAML a user wrote (a task spec, a replay file), parsed so that no input can crash, hang or
 * crawl: duplicate keys are found in linear time (yaml's own `uniqueKeys` check compares each key
 * with every earlier one: 20,000 keys took 5 s, 100,000 never finished); aliases are resolved with
 * a budget (an alias bomb is a few lines that expand to billions of nodes), never in a cycle and
 * never before their anchor; nesting is bounded (deep nesting overflows the stack of the parser,
 * of zod and of JSON). Every problem has an offset in the text.
 */

/** Nesting deeper than this is refused: no spec or replay file needs it. */
export const MAX_YAML_DEPTH = 100;
/** Nodes that aliases may add to a document, in total. */
export const MAX_ALIAS_EXPANSION = 100_000;

export type YamlProblemKind = "syntax" | "duplicate_key" | "alias" | "depth";

export interface YamlProblem {
  kind: YamlProblemKind;
  /** Offset in the text (0-based). */
  offset: number;
  message: string;
}

export interface ParsedYaml {
  doc: Document;
  lineCounter: LineCounter;
  /** Empty when the document is usable; `value` is then its plain JS value. */
  problems: YamlProblem[];
  value: unknown;
}

export function parseYaml(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    // logLevel "error": yaml's warnings (a mapping used as a key) would go to process.emitWarning,
    // printed on stderr with a hint about `node --trace-warnings`.
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false, logLevel: "error" });
  } catch (error) {
    // The parser reports its own errors; a throw is a stack overflow or the like.
    const empty = parseDocument("", { lineCounter: new LineCounter() });
    return { doc: empty, lineCounter, problems: [syntax(0, errorMessage(error))], value: undefined };
  }
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((error) => syntax(error.pos[0], errorMessage(error)));
    return { doc, lineCounter, problems, value: undefined };
  }
  const problems = checkStructure(doc, lineCounter);
  if (problems.length > 0) return { doc, lineCounter, problems, value: undefined };
  try {
    // Aliases were checked above, with a budget on what they expand to; yaml's own limit counts
    // differently and throws without a position.
    return { doc, lineCounter, problems, value: doc.toJS({ maxAliasCount: -1 }) };
  } catch (error) {
    return { doc, lineCounter, problems: [syntax(0, errorMessage(error))], value: undefined };
  }
}

function syntax(offset: number, message: string): YamlProblem {
  return { kind: "syntax", offset, message };
}

function errorMessage(error: unknown): string {
  const message = errorText(error);
  if (error instanceof RangeError || /Maximum call stack/.test(message)) {
    return `the document nests too deeply (at most ${MAX_YAML_DEPTH} levels)`;
  }
  // yaml appends " at line L, column C:" and an excerpt; the position is reported separately.
  return message.replace(/ at line \d+, column \d+[\s\S]*$/, "").trim();
}

interface Frame {
  node: Node;
  children: Node[];
  next: number;
  depth: number;
  size: number;
}

/** Problems of one kind reported at most, so that a hostile file cannot make a million. */
const MAX_PROBLEMS_OF_A_KIND: Record<Exclude<YamlProblemKind, "syntax">, number> = {
  duplicate_key: 20,
  alias: 1,
  depth: 1,
};

/**
 * One pass over the document, in document order, without recursion: duplicate keys, nesting
 * depth, and aliases (unknown anchor, cycle, expansion over the budget). The walk stops at the
 * first alias problem: what follows could not be resolved.
 */
function checkStructure(doc: Document, lineCounter: LineCounter): YamlProblem[] {
  const problems: YamlProblem[] = [];
  const counts = { duplicate_key: 0, alias: 0, depth: 0 };
  const report = (kind: keyof typeof counts, node: Node, message: string) => {
    if (counts[kind]++ >= MAX_PROBLEMS_OF_A_KIND[kind]) return;
    problems.push({ kind, offset: node.range?.[0] ?? 0, message });
  };
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  let expansion = 0;
  const root = doc.contents;
  if (!root) return problems;

  const stack: Frame[] = [];
  const enter = (node: Node, depth: number): number | undefined => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (!target) {
        report("alias", node, `alias '*${node.source}' has no anchor '&${node.source}' before it`);
        return 1;
      }
      const size = sizes.get(target);
      if (size === undefined) {
        report("alias", node, `alias '*${node.source}' is inside the node it refers to (a cycle)`);
        return 1;
      }
      expansion += size;
      if (expansion > MAX_ALIAS_EXPANSION) {
        report(
          "alias",
          node,
          `aliases expand the document by more than ${MAX_ALIAS_EXPANSION.toLocaleString("en-US")} values (an alias bomb?)`,
        );
      }
      return size;
    }
    if (node.anchor) anchors.set(node.anchor, node);
    if (depth > MAX_YAML_DEPTH) {
      report("depth", node, `the document nests too deeply (at most ${MAX_YAML_DEPTH} levels)`);
      if (node.anchor) sizes.set(node, 1);
      return 1;
    }
    if (isMap(node)) {
      const keys = new Map<unknown, Node>();
      const children: Node[] = [];
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key as Node | null;
        const value = pair.value as Node | null;
        if (isScalar(key)) {
          const first = keys.get(key.value);
          if (first) {
            const line = lineCounter.linePos(first.range?.[0] ?? 0).line;
            report("duplicate_key", key, `duplicate key '${String(key.value)}' (first at line ${line})`);
          } else keys.set(key.value, key);
        }
        if (key) children.push(key);
        if (value) children.push(value);
      }
      stack.push({ node, children, next: 0, depth, size: 1 });
      return undefined;
    }
    if (isSeq(node)) {
      const children = node.items.filter((item): item is Node => item !== null && typeof item === "object");
      stack.push({ node, children, next: 0, depth, size: 1 });
      return undefined;
    }
    if (node.anchor) sizes.set(node, 1);
    return 1;
  };

  const rootSize = enter(root, 1);
  if (rootSize !== undefined) return problems;
  while (stack.length > 0 && counts.alias === 0) {
    const frame = stack.at(-1)!;
    const child = frame.children[frame.next++];
    if (child === undefined) {
      stack.pop();
      if (frame.node.anchor) sizes.set(frame.node, frame.size);
      const parent = stack.at(-1);
      if (parent) parent.size += frame.size;
      continue;
    }
    const size = enter(child, frame.depth + 1);
    if (size !== undefined) frame.size += size;
  }
  return problems;
}
