/**
 * The attacks of bench/hostile.ts, in a process of their own (so that the attackers' sockets do
 * not slow the timed client's event loop): `node --import tsx bench/hostileAttacker.ts <attack>
 * <port> <key>` runs one until it is killed. Each comes from loopback addresses other than
 * 127.0.0.1 and opens a connection again as soon as the service drops one.
 */
import net from 'node:net';

/** The loopback address of attacker `i` (never 127.0.0.1, the prompt client's). */
const attackerAddress = (i: number) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;

type Start = (port: number, key: string) => () => void;

/** Keeps `count` connections open, each opened again as soon as the service drops it. */
function holdConnections(port: number, count: number, address: (i: number) => string, opening: (socket: net.Socket) => void): () => void {
  let stopped = false;
  const sockets = new Set<net.Socket>();
  const open = (i: number) => {
    if (stopped) return;
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: address(i) });
    sockets.add(socket);
    socket.on('connect', () => opening(socket));
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      setTimeout(() => open(i), 50);
    });
  };
  for (let i = 0; i < count; i++) open(i);
  return () => {
    stopped = true;
    for (const socket of sockets) socket.destroy();
  };
}

function stalledBodies(address: (i: number) => string, count: number): Start {
  return (port) =>
    holdConnections(port, count, address, (socket) =>
      socket.write('POST /v1/blacklist/report HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{'),
    );
}

function drippedHeads(count: number): Start {
  return (port) => {
    const drips = new Set<NodeJS.Timeout>();
    const stop = holdConnections(port, count, attackerAddress, (socket) => {
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      const drip = setInterval(() => socket.writable && socket.write('X'), 1000);
      drips.add(drip);
      socket.once('close', () => (clearInterval(drip), drips.delete(drip)));
    });
    return () => {
      for (const drip of drips) clearInterval(drip);
      stop();
    };
  };
}

function nonReaders(count: number): Start {
  return (port, key) => {
    const ips = Array.from({ length: 1000 }, (_, i) => `${1 + (i % 220)}.${(i * 7) % 256}.${(i * 13) % 256}.${1 + (i % 250)}`);
    const body = JSON.stringify({ ips });
    const request =
      `POST /v1/ip/batch HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    return holdConnections(
      port,
      count,
      (i) => `127.0.9.${1 + i}`,
      (socket) => {
        socket.write(request.repeat(10));
        socket.pause();
      },
    );
  };
}

/** The attacks by name, with the cap they are sized for. */
export function attacks(cap: number): { id: string; what: string; start: Start }[] {
  const each = [
    {
      id: 'stalled-bodies',
      what: `${cap + 100} stalled report bodies from ${cap + 100} addresses`,
      start: stalledBodies(attackerAddress, cap + 100),
    },
    { id: 'dripped-heads', what: `${cap + 100} heads dripped a byte a second from ${cap + 100} addresses`, start: drippedHeads(cap + 100) },
    { id: 'one-address', what: `${cap + 100} stalled report bodies from one address`, start: stalledBodies(() => '127.0.8.1', cap + 100) },
    { id: 'non-readers', what: '20 clients asking for ten 1,000-address batch answers each, reading none', start: nonReaders(20) },
  ];
  const all: Start = (port, key) => {
    const stops = each.map((a) => a.start(port, key));
    return () => stops.forEach((stop) => stop());
  };
  return [...each, { id: 'all', what: 'all of the above at once', start: all }];
}

const [id, port, key, cap] = process.argv.slice(2);
if (id !== undefined) {
  const attack = attacks(Number(cap)).find((a) => a.id === id);
  if (!attack) throw new Error(`no attack ${id}`);
  attack.start(Number(port), key);
  // Until killed, whatever the attack's own sockets do.
  setInterval(() => undefined, 60_000);
  process.send?.('started');
}
