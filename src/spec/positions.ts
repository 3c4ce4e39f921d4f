import { type Document, isMap, isNode, isPair, isScalar, isSeq, type LineCounter, type Node } from "yaml";

/** A parsed task file with what is needed to turn a field path into `line:col`. */
export interface SourceMap {
  file: string;
  source: string;
  doc: Document;
  lineCounter: LineCounter;
}

export interface Position {
  line: number;
  column: number;
}

/** The 1-based line and column of a source offset. */
export function positionOf(map: SourceMap, offset: number): Position {
  const { line, col } = map.lineCounter.linePos(offset);
  return { line, column: col };
}

/**
 * The node at `path`, or the deepest existing ancestor when the path does not exist (a missing
 * field points at the mapping that should hold it). `key: true` returns the key node of the last
 * step instead of its value (for unknown keys).
 */
export function nodeAt(
  map: SourceMap,
  path: readonly PropertyKey[],
  options: { key?: boolean } = {},
): Node | undefined {
  let node: unknown = map.doc.contents;
  for (let i = 0; i < path.length; i++) {
    const step = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(step),
      );
      if (!pair) return node;
      if (last && options.key && isNode(pair.key)) return pair.key;
      // `key:` with nothing after it has a null value node; point at the key then.
      node = isNode(pair.value) ? pair.value : pair.key;
      if (!isNode(pair.value)) return isNode(node) ? node : undefined;
    } else if (isSeq(node) && typeof step === "number") {
      const item = node.items[step];
      if (!isNode(item)) return node;
      node = item;
    } else {
      return isNode(node) ? node : undefined;
    }
  }
  return isNode(node) ? node : undefined;
}

/** The position of the node at `path` (see `nodeAt`); the start of the file when there is none. */
export function positionAt(
  map: SourceMap,
  path: readonly PropertyKey[],
  options: { key?: boolean } = {},
): Position {
  const node = nodeAt(map, path, options);
  return positionOf(map, node?.range?.[0] ?? 0);
}

/**
 * The position of the `occurrence`-th (0-based) appearance of `needle` inside the source text of
 * the node at `path`; the node's own position if it cannot be found (escaped quoted strings).
 */
export function positionInNode(
  map: SourceMap,
  path: readonly PropertyKey[],
  needle: string,
  occurrence: number,
): Position {
  const node = nodeAt(map, path);
  const [start, end] = node?.range ?? [0, map.source.length];
  let at = start - 1;
  for (let i = 0; i <= occurrence; i++) {
    at = map.source.indexOf(needle, at + 1);
    if (at < 0 || at >= end) return positionOf(map, start);
  }
  return positionOf(map, at);
}
