import type { Socket } from 'node:net';
import type { Context } from 'koa';

/**
 * Waits until the answers before this one on its connection (pipelined requests) have been taken
 * by the system; false when the connection closed first. node:http holds each pipelined answer in
 * memory until those before it are sent, so a big answer made only then keeps a client that sends
 * many requests and reads none to one big answer in memory, until the send timeout cuts it.
 */
export function earlierAnswersTaken(ctx: Context): true | Promise<boolean> {
  const { res } = ctx;
  if (res.socket !== null) return true;
  if (ctx.req.socket.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (taken: boolean) => () => {
      res.off('socket', assigned);
      forget();
      resolve(taken);
    };
    const assigned = settle(true);
    const forget = whenClosed(ctx.req.socket, settle(false));
    res.once('socket', assigned);
  });
}

/** What waits on each connection's close: one listener per connection, however many requests wait. */
const closeWaiters = new WeakMap<Socket, Set<() => void>>();

/** Calls `then` when `socket` closes; returns what cancels that. */
function whenClosed(socket: Socket, then: () => void): () => void {
  let waiters = closeWaiters.get(socket);
  if (waiters === undefined) {
    const set = (waiters = new Set());
    closeWaiters.set(socket, set);
    socket.once('close', () => {
      closeWaiters.delete(socket);
      for (const waiter of set) waiter();
    });
  }
  waiters.add(then);
  const set = waiters;
  return () => set.delete(then);
}
