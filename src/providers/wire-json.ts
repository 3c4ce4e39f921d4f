/**
 * Request bodies joined from JSON kept per conversation item. Every request carries the whole
 * conversation, which grows by a few messages a turn: serialising each body whole made a session's
 * requests quadratic in its length. At zero latency here, the SDK's `JSON.stringify` of the body
 * took 0.8 ms of each of turns 50-290 of a 300-turn session; a 500-turn session reading 40 KB a
 * turn took 42-52 s, 19-20 s with this (the bare loop of the benchmarks: 40 s). Each wire item is
 * serialised once, the first time it is sent, and its bytes reused by every later request.
 *
 * That holds as long as an item does not change once made. The wire builders make their items from
 * a conversation message, kept per message object (`perMessage`), and a message does not change
 * once in the conversation: a changed one, such as a compacted tool result or a message redacted
 * again for a newly learnt secret, is a new object (../run/message-redactions.ts relies on the
 * same). What depends on an item's place (Anthropic's cache breakpoints) goes on a copy.
 */
import type { AgentMessage } from "../core/types.ts";
import type { Json } from "./wire-utils.ts";

const kept = new WeakMap<object, Buffer>();

/** `JSON.stringify(item)` as UTF-8, made once per item object. */
export function itemBytes(item: object): Buffer {
  return keptFor(kept, item, () => {
    const text = JSON.stringify(item);
    // A buffer of its own: a small one from Node's shared pool would keep the pool's whole 8 KB
    // slab alive as long as the conversation holds the item.
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    bytes.write(text);
    return bytes;
  });
}

/** Adds an item's JSON to `pieces`: its bytes, or pieces of its own around kept ones. */
export type AddItem<T> = (item: T, pieces: Buffer[]) => void;

/** The default AddItem: the item's kept bytes. */
export function addItemBytes(item: object, pieces: Buffer[]): void {
  pieces.push(itemBytes(item));
}

const COMMA = Buffer.from(",");

/**
 * `JSON.stringify(body)` as UTF-8, the same bytes, with the array at `body[key]` made of what
 * `addItem` gives for each of its elements (by default, `itemBytes`). Bytes rather than a string:
 * the pieces are copied once, into the body, and the body is not encoded again on its way out
 * (joined texts, encoded whole, took three copies of a 20 MB body a turn, and 90-220 MB more peak
 * memory in that 500-turn session than serialising it whole; bytes took 100 MB less).
 */
export function bodyBytes<T extends object>(
  body: Json,
  key: string,
  addItem: AddItem<T> = addItemBytes,
): Buffer {
  const pieces: Buffer[] = [];
  let text = "{";
  let first = true;
  for (const [name, value] of Object.entries(body)) {
    const list = name === key && Array.isArray(value);
    const json = list ? "" : JSON.stringify(value);
    // As JSON.stringify does, a field whose value JSON cannot hold (undefined, a function) is left out.
    if (json === undefined) continue;
    text += `${first ? "" : ","}${JSON.stringify(name)}:`;
    first = false;
    if (!list) {
      text += json;
      continue;
    }
    pieces.push(Buffer.from(`${text}[`));
    text = "]";
    addList(value as T[], pieces, addItem);
  }
  pieces.push(Buffer.from(`${text}}`));
  return Buffer.concat(pieces);
}

/** The JSON of `items` without its brackets: each one's pieces, a comma between two. */
export function addList<T>(items: readonly T[], pieces: Buffer[], addItem: AddItem<T>): void {
  items.forEach((item, index) => {
    if (index > 0) pieces.push(COMMA);
    addItem(item, pieces);
  });
}

/**
 * The wire items of `message`, made by `make` the first time and kept in `cache` for later
 * requests. The items (and `make`'s result) must not be changed by the caller.
 */
export function perMessage<T>(cache: WeakMap<AgentMessage, T>, message: AgentMessage, make: () => T): T {
  return keptFor(cache, message, make);
}

/** What `cache` holds for `key`, made by `make` and kept the first time. */
function keptFor<K extends object, T>(cache: WeakMap<K, T>, key: K, make: () => T): T {
  let made = cache.get(key);
  if (made === undefined) {
    made = make();
    cache.set(key, made);
  }
  return made;
}

/** The options that make an SDK send `bytes` as the request's body, as they are. */
export function rawBody(bytes: Buffer): { body: Buffer; headers: { "content-type": string } } {
  // Both SDKs pass bytes through untouched; a body in the options replaces the one they would
  // serialise from the parameters (which they are still given, for what they read of them).
  return { body: bytes, headers: { "content-type": "application/json" } };
}
