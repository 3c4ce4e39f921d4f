import type { MockScript } from "../mock-llm/server.ts";

/**
 * A two-turn task, for any number of runs sharing one mock server: even requests write note.txt
 * (1200 input, 40 output tokens), odd ones finish (900 input, 20 output). Each run: 2100 input and
 * 60 output tokens, no cache.
 */
export const writeNoteThenDone: MockScript = (index) =>
  index % 2 === 0
    ? {
        text: "Writing the note.",
        toolCalls: [{ name: "write", arguments: { path: "note.txt", content: "from the model\n" } }],
        usage: { input: 1200, output: 40 },
      }
    : { text: "Done: note.txt written.", usage: { input: 900, output: 20 } };
