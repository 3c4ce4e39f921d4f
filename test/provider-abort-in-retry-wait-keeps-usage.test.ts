import { expect, test } from "vitest";
import type { AssistantMessageEvent } from "../src/core/provider.ts";
import type { AssistantMessage, Model } from "../src/core/types.ts";
import { StreamInterruptedError } from "../src/providers/errors.ts";
import { type Attempt, OPENED, runStream } from "../src/providers/stream-runner.ts";
import { streamRequest } from "./mock-llm/collect.ts";

test("aborting during the second retry wait keeps (and prices) the usage of every attempt", async () => {
  const controller = new AbortController();
  const model: Model = { provider: "test", id: "m" };
  let attempts = 0;
  // Each attempt is billed 100 input and 10 output tokens, then the stream is cut.
  const attempt: Attempt = async function* ({ builder }) {
    attempts++;
    builder.usage({ input: 100, output: 10, cacheRead: 0, cacheWrite: 0 });
    yield OPENED;
    throw new StreamInterruptedError("cut", "the stream ended before the end");
  };
  const stream = runStream(
    streamRequest(model, { signal: controller.signal }),
    {
      provider: "test",
      pricing: { input: 1, output: 10, cacheRead: 0, cacheWrite: 0 },
      maxRetries: 5,
      idleTimeoutMs: 60_000,
      retryDelayMs: 1,
      now: () => 0,
    },
    attempt,
  );
  const events: AssistantMessageEvent[] = [];
  let message: AssistantMessage | undefined;
  for await (const event of stream) {
    events.push(event);
    if (event.type === "retry" && event.attempt === 2) controller.abort();
    if (event.type === "error" || event.type === "done") message = event.message;
  }
  expect(attempts).toBe(2);
  expect(events.filter((e) => e.type === "retry")).toHaveLength(2);
  expect(message?.stopReason).toBe("aborted");
  expect(message?.usage).toMatchObject({ input: 200, output: 20, totalTokens: 220 });
  // 200 input at $1/M + 20 output at $10/M.
  expect(message?.usage.cost.total).toBeCloseTo(0.0004, 12);
  expect(message?.usage.costUnknown).toBeUndefined();
});
