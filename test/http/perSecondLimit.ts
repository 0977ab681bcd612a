/**
 * The per-second limit held across several processes: `clients` loops send as fast as answers come
 * for `ms`, and the admitted requests are checked against every one-second window.
 */
import { expect } from 'vitest';

export async function expectPerSecondLimitHeld(
  send: (client: number) => Promise<{ status: number; body: any }>,
  clients: number,
  limit: number,
  ms = 2500,
): Promise<void> {
  const admitted: { sent: number; received: number }[] = [];
  let refused = 0;
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (Date.now() < until) {
        const sent = Date.now();
        const reply = await send(client);
        const received = Date.now();
        if (reply.status === 200) admitted.push({ sent, received });
        else {
          expect(reply.body?.error?.code).toBe('rate_limited');
          refused++;
        }
      }
    }),
  );
  // Requests sent at or after one's start and answered within a second of it were all admitted
  // inside one window shorter than a second: at most `limit` of them.
  for (const first of admitted) {
    const within = admitted.filter((r) => r.sent >= first.sent && r.received < first.sent + 1000);
    expect(within.length).toBeLessThanOrEqual(limit);
  }
  expect(refused).toBeGreaterThan(0);
  // and the limit is not stricter than `limit` a second
  const seconds = ms / 1000;
  expect(admitted.length).toBeGreaterThanOrEqual(limit * Math.floor(seconds));
  expect(admitted.length).toBeLessThanOrEqual(limit * Math.ceil(seconds + 1));
}
