/**
 * Each message of the conversation redacted once for the whole run: the copy sent to the model on
 * every later turn (./redact-requests.ts) and the one transcript.json holds (./resume/transcript-file.ts)
 * come from the same pass. Before, the end of a run redacted the whole conversation a second time
 * for the transcript: for 500 turns of 40 KB tool results, ~0.3 s of the wait between the last
 * answer and the exit; now only what no request carried (the final answer) is redacted then.
 *
 * The two copies differ only where the request keeps a signed thinking block as it was (the
 * provider checks its signature) and where the transcript leaves out a tool result's `details`
 * (the model never sees them). A pass is kept per message object (a message is not changed once in
 * the transcript; a replaced one, such as a compacted tool result, is a new object) and per set of
 * the redactor's secrets: when one is added, every message is redacted again on its next use.
 */
import type { AgentMessage, AssistantMessage, ThinkingContent } from "../core/types.ts";
import { mapStrings, type Redactor } from "../output/index.ts";

export interface MessageRedactions {
  /** `message` as the model is sent it: redacted, but for signed thinking, sent back as it was. */
  forRequest(message: AgentMessage): AgentMessage;
  /**
   * `message` as transcript.json holds it, serialised: redacted throughout, thinking included (a
   * block that held a secret loses its signature, which no longer matches), a tool result without
   * its `details`; and whether redaction changed anything in it.
   */
  forTranscript(message: AgentMessage): { json: string; redacted: boolean };
}

interface Pass {
  /** The redactor's `version` it was made under. */
  version: number;
  /** The message redacted, thinking blocks as they were; a tool result's `details` empty. */
  redacted: AgentMessage;
  /** Whether redaction changed any string of `redacted`. */
  changed: boolean;
}

export function createMessageRedactions(redactor: Pick<Redactor, "redact" | "version">): MessageRedactions {
  const passes = new WeakMap<AgentMessage, Pass>();
  // Per tool result, its request copy: the pass's, with its `details` redacted too.
  const requests = new WeakMap<AgentMessage, { version: number; message: AgentMessage }>();

  const noting = <T>(value: T): { value: T; changed: boolean } => {
    let changed = false;
    const copy = mapStrings(value, (text) => {
      const out = redactor.redact(text);
      if (out !== text) changed = true;
      return out;
    });
    return { value: copy, changed };
  };

  const pass = (message: AgentMessage): Pass => {
    const version = redactor.version;
    const known = passes.get(message);
    if (known?.version === version) return known;
    let made: Pass;
    if (message.role === "assistant") {
      const head = noting({ ...message, content: [] });
      let changed = head.changed;
      const content = message.content.map((part) => {
        if (part.type === "thinking") return part;
        const copy = noting(part);
        changed ||= copy.changed;
        return copy.value;
      });
      made = { version, redacted: { ...head.value, content } as AssistantMessage, changed };
    } else {
      const copy = noting(message.role === "toolResult" ? { ...message, details: {} } : message);
      made = { version, redacted: copy.value, changed: copy.changed };
    }
    passes.set(message, made);
    return made;
  };

  return {
    forRequest(message) {
      const { redacted } = pass(message);
      if (message.role !== "toolResult" || redacted.role !== "toolResult") return redacted;
      const version = redactor.version;
      let known = requests.get(message);
      if (known?.version !== version) {
        // The same key order as the message's: `details` keeps its place.
        known = { version, message: { ...redacted, details: noting(message.details).value } };
        requests.set(message, known);
      }
      return known.message;
    },
    forTranscript(message) {
      const { redacted, changed } = pass(message);
      if (message.role !== "assistant" || redacted.role !== "assistant") {
        return { json: JSON.stringify(redacted), redacted: changed };
      }
      let thinkingChanged = false;
      const content = redacted.content.map((part) => {
        if (part.type !== "thinking") return part;
        const copy = noting(part);
        if (!copy.changed) return part;
        thinkingChanged = true;
        return withoutSignature(copy.value);
      });
      const json = JSON.stringify(thinkingChanged ? { ...redacted, content } : redacted);
      return { json, redacted: changed || thinkingChanged };
    },
  };
}

/** A redacted thinking block: its signature (or opaque payload) no longer matches, so it goes. */
function withoutSignature(part: ThinkingContent): ThinkingContent {
  const { signature: _stale, redacted: _opaque, ...plain } = part;
  return plain;
}
