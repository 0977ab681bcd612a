/**
 * The nginx peer of the HTTP bench: Debian's nginx with the GeoIP2 module (libnginx-mod-http-geoip2)
 * on the same DB-IP city mmdbs as the maxmind peer, one worker, no access log, answering
 * `GET /ip/{ip}` with a JSON record of about 600 bytes built from the geoip2 variables of the
 * address and nginx maps of the country facts (countries-list), in the shape of our basic record
 * (what the database does not give is null).
 *
 * It runs from a prefix of the bench's own (config, pid, logs, temp paths), in the foreground
 * (`daemon off`), as the bench's user; the packages are installed with apt-get when missing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installDebianPackages, which } from './systemPackages.js';
import { MMDB_IPV4, MMDB_IPV6, STATIC_RECORD } from './httpServers.js';
import { ROOT } from './httpSettings.js';

const GEOIP2_MODULE = '/usr/lib/nginx/modules/ngx_http_geoip2_module.so';
const PACKAGES = ['nginx', 'libnginx-mod-http-geoip2'];

export interface NginxBinary {
  nginx: string;
  module: string;
  version: string;
  installed_by_bench: boolean;
}

function present(): { nginx: string; module: string } | null {
  const nginx = which('nginx') ?? (fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : null);
  return nginx && fs.existsSync(GEOIP2_MODULE) ? { nginx, module: GEOIP2_MODULE } : null;
}

/** nginx and its GeoIP2 module, installed with apt-get (as root, or through `sudo -n`) when missing; else why not. */
export function findNginx(): NginxBinary | { missing: string } {
  let found = present();
  let installed = false;
  if (!found && installDebianPackages(PACKAGES)) {
    found = present();
    installed = found !== null;
  }
  if (!found) return { missing: `nginx or ${GEOIP2_MODULE} is missing (Debian: apt-get install ${PACKAGES.join(' ')})` };
  const v = spawnSync(found.nginx, ['-v'], { encoding: 'utf8' });
  return { ...found, version: `${v.stderr}${v.stdout}`.trim().replace(/^nginx version:\s*/, ''), installed_by_bench: installed };
}

/** An nginx string literal (double quotes; backslash and double quote escaped). */
const nginxString = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** Maps from the country code to JSON tokens of its name and continent (country facts, as our records carry them). */
function countryMaps(): string[] {
  const dir = path.join(ROOT, 'node_modules', 'countries-list');
  const countries = JSON.parse(fs.readFileSync(path.join(dir, 'countries.min.json'), 'utf8')) as Record<
    string,
    { name: string; continent: string }
  >;
  const continents = JSON.parse(fs.readFileSync(path.join(dir, 'continents.min.json'), 'utf8')) as Record<string, string>;
  const map = (name: string, value: (c: { name: string; continent: string }) => string) => [
    `  map $cc ${name} {`,
    '    default null;',
    ...Object.entries(countries).map(([code, c]) => `    ${code} ${nginxString(JSON.stringify(value(c)))};`),
    '  }',
  ];
  return [
    ...map('$j_country', (c) => c.name),
    ...map('$j_continent_code', (c) => c.continent),
    ...map('$j_continent', (c) => continents[c.continent] ?? c.continent),
  ];
}

/** The answer: our basic record's keys, filled from the variables set in the location (maps turn '' into null). */
function answerTemplate(version: 4 | 6): string {
  const meta = JSON.stringify(STATIC_RECORD.meta);
  return (
    `{"success":true,"ip":"$addr","version":${version},"location":{"continent":$j_continent,"continent_code":$j_continent_code,` +
    `"country":$j_country,"country_code":$j_cc,"region":$j_region,"city":$j_city,"district":null,"postal_code":$j_postcode,` +
    `"latitude":$lat,"longitude":$lon,"accuracy_radius_km":null,"is_eu":null},"timezone":{"id":$j_tz},` +
    `"network":{"asn":null,"isp":null,"organization":null,"domain":null,"connection_type":null},"meta":${meta}}`
  );
}

function locationBlock(version: 4 | 6): string[] {
  const v = `g${version}`;
  const pattern = version === 4 ? '[0-9.]+' : '[0-9a-fA-F:.]+';
  return [
    `    location ~ ^/ip/(?<addr>${pattern})$ {`,
    ...['cc', 'city', 'region', 'postcode', 'tz', 'lat', 'lon'].map((k) => `      set $${k} $${v}_${k};`),
    `      return 200 ${nginxString(answerTemplate(version))};`,
    '    }',
  ];
}

function geoipBlock(version: 4 | 6): string[] {
  const v = `g${version}`;
  const fields: [string, string][] = [
    ['cc', 'country_code'],
    ['city', 'city'],
    ['region', 'state1'],
    ['postcode', 'postcode'],
    ['tz', 'timezone'],
  ];
  return [
    `  geoip2 ${version === 4 ? MMDB_IPV4 : MMDB_IPV6} {`,
    ...fields.map(([k, p]) => `    $${v}_${k} source=$addr ${p};`),
    `    $${v}_lat default=null source=$addr latitude;`,
    `    $${v}_lon default=null source=$addr longitude;`,
    '  }',
  ];
}

/** The whole configuration for one worker on 127.0.0.1:`port`, everything under `prefix`. */
export function nginxConfig(prefix: string, port: number, module: string): string {
  const stringToken = (name: string, from: string) => [`  map $${from} ${name} {`, '    "" null;', `    default "\\"$${from}\\"";`, '  }'];
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path.join(prefix, 'tmp', t)};`);
  const user = os.userInfo();
  return [
    `load_module ${module};`,
    // Only a master started as root switches users: keep the bench's own.
    ...(process.getuid?.() === 0 ? [`user ${user.username};`] : []),
    'worker_processes 1;',
    'daemon off;',
    `pid ${path.join(prefix, 'nginx.pid')};`,
    `error_log ${path.join(prefix, 'error.log')} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    ...temp,
    '  keepalive_timeout 65s;',
    // wrk keeps its connections: nginx's default of 1000 requests per connection would make it reconnect.
    '  keepalive_requests 100000000;',
    '  default_type application/json;',
    '  charset utf-8;',
    '  charset_types application/json;',
    ...geoipBlock(4),
    ...geoipBlock(6),
    ...countryMaps(),
    ...stringToken('$j_cc', 'cc'),
    ...stringToken('$j_city', 'city'),
    ...stringToken('$j_region', 'region'),
    ...stringToken('$j_postcode', 'postcode'),
    ...stringToken('$j_tz', 'tz'),
    '  server {',
    `    listen 127.0.0.1:${port};`,
    ...locationBlock(4),
    ...locationBlock(6),
    '    location / { return 404 \'{"success":false,"error":"not found"}\'; }',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** Writes the prefix (config, temp directories) for nginx on `port`; returns nginx's argv after the binary. */
export function prepareNginx(prefix: string, port: number, binary: NginxBinary): string[] {
  for (const t of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) fs.mkdirSync(path.join(prefix, 'tmp', t), { recursive: true });
  const conf = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(conf, nginxConfig(prefix, port, binary.module));
  const test = spawnSync(binary.nginx, ['-t', '-p', prefix, '-c', conf, '-e', path.join(prefix, 'error.log')], { encoding: 'utf8' });
  if (test.status !== 0) throw new Error(`nginx -t: ${test.stderr}`);
  return ['-p', prefix, '-c', conf, '-e', path.join(prefix, 'error.log')];
}
