/**
 * Redis MONITOR for tests, on a socket of its own. ioredis's `monitor()` enters its monitoring
 * state only in a promise callback after MONITOR's +OK, so when other clients keep the server busy
 * the first command lines arrive in the same read as the +OK and its reply queue throws ("Command
 * queue state error"), uncaught. Here every line after the +OK is a command line by construction.
 */
import net from 'node:net';

export interface MonitoredCommand {
  /** the command and its arguments, unquoted */
  args: string[];
  /** the client's address, `host:port`, or `lua` for a script's commands */
  source: string;
}

export interface Monitor {
  stop(): void;
}

/** MONITOR's line: `<time> [<db> <source>] "<arg>" "<arg>" …`, each argument quoted as Redis's sdscatrepr does. */
const LINE = /^\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/;
const ARGUMENT = /"((?:[^"\\]|\\.)*)"/g;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', '"': '"', '\\': '\\' };

/** Parses one line of MONITOR's stream (without the `+` and CRLF); null for anything else. */
export function monitoredCommand(line: string): MonitoredCommand | null {
  const match = LINE.exec(line);
  if (!match) return null;
  const args = [...match[2].matchAll(ARGUMENT)].map(([, quoted]) =>
    quoted.replace(/\\(x[0-9a-f]{2}|.)/g, (_, e: string) =>
      e.length === 3 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (ESCAPES[e] ?? e),
    ),
  );
  return { args, source: match[1] };
}

/** Starts MONITOR on the Redis at `url`; resolves once Redis has confirmed it, then calls `onCommand` for every command run. */
export function startMonitor(url: string, onCommand: (command: MonitoredCommand) => void): Promise<Monitor> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    let confirmed = false;
    let pending = '';
    socket.setEncoding('latin1');
    socket.once('error', reject);
    socket.on('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\r\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (!confirmed) {
          if (line !== '+OK') {
            socket.destroy();
            return reject(new Error(`MONITOR refused: ${line}`));
          }
          confirmed = true;
          socket.off('error', reject);
          socket.on('error', () => {});
          resolve({ stop: () => socket.destroy() });
          continue;
        }
        const command = line.startsWith('+') ? monitoredCommand(line.slice(1)) : null;
        if (command) onCommand(command);
      }
    });
  });
}
