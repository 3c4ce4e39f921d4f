import {
  type Document,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  type Pair,
  type YAMLMap,
} from "yaml";

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
      const pair = pairsOf(node).get(String(step));
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

const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

/** A mapping's pairs by key, built once: a lookup per problem must not scan the mapping. */
function pairsOf(node: YAMLMap): Map<string, Pair> {
  let index = pairIndex.get(node);
  if (!index) {
    index = new Map();
    for (const item of node.items) {
      if (isPair(item) && isScalar(item.key)) {
        const key = String(item.key.value);
        if (!index.has(key)) index.set(key, item);
      }
    }
    pairIndex.set(node, index);
  }
  return index;
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
 * Positions of pieces of a string value in the source: `pieces` are substrings of the value at
 * known offsets (`index`), in any order; the returned function gives the position of the piece at
 * a value offset. Pieces are found in the source text of the node at `path` in order, each after
 * the one before, so the whole field costs one pass over its source. A piece the source does not
 * hold verbatim (an escaped quoted string, a folded line) and every piece after it get the node's
 * own position.
 */
export function createPieceLocator(
  map: SourceMap,
  path: readonly PropertyKey[],
  pieces: readonly { index: number; raw: string }[],
): (index: number) => Position {
  let offsets: Map<number, number> | undefined;
  const node = nodeAt(map, path);
  const [start, end] = node?.range ?? [0, map.source.length];
  return (index) => {
    if (!offsets) {
      offsets = new Map();
      const source = map.source.slice(start, end);
      let cursor = 0;
      for (const piece of [...pieces].sort((a, b) => a.index - b.index)) {
        const at = source.indexOf(piece.raw, cursor);
        if (at < 0) break;
        offsets.set(piece.index, start + at);
        cursor = at + piece.raw.length;
      }
    }
    return positionOf(map, offsets.get(index) ?? start);
  };
}
