/** `netlookup serve`: the HTTP API on the embedded store (or Redis with REDIS_URL, issue 5). */
import { configFromEnv } from '../http/config.js';
import { startService } from '../http/server.js';

export interface ServeFlags {
  port?: string;
  host?: string;
}

export async function runServe(flags: ServeFlags): Promise<void> {
  const config = configFromEnv({ ...process.env, ...(flags.port ? { PORT: flags.port } : {}), ...(flags.host ? { HOST: flags.host } : {}) });
  const service = await startService(config);
  process.stdout.write(`netlookup listening on ${service.url}\n`);
  if (service.firstKey) {
    process.stdout.write(
      [
        '',
        'First start: created a free account and its API key (shown only now, stored only hashed):',
        `  account ${service.firstKey.account}`,
        `  key     ${service.firstKey.secret}`,
        '',
        'Try:',
        `  curl -H 'X-API-Key: ${service.firstKey.secret}' ${service.url}/v1/ip/8.8.8.8`,
        `  curl -H 'X-API-Key: ${service.firstKey.secret}' ${service.url}/v1/mac/00:00:0c:12:34:56`,
        `  curl -H 'X-API-Key: ${service.firstKey.secret}' ${service.url}/v1/blacklist/1.2.3.4`,
        '',
      ].join('\n'),
    );
  }
  const stop = (signal: string) => {
    process.stdout.write(`${signal}: finishing in-flight requests\n`);
    service.stop().then(
      () => process.exit(0),
      (error: Error) => {
        process.stderr.write(`netlookup: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  process.on('SIGHUP', () => {
    service.deps.engine.reload().then(
      (engine) => service.deps.logger.info({ tables: engine.tables().map((t) => `${t.kind}:${t.checksum}`) }, 'tables reloaded'),
      (error: Error) => service.deps.logger.error({ err: error.message }, 'table reload refused; the loaded tables stay in use'),
    );
  });
}
