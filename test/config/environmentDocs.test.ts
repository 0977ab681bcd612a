/**
 * Every environment variable the code reads has its row in the README's configuration table, and
 * every row there names a variable the code reads: the table is the one place an operator looks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** The names the code reads: `process.env.X`, `env.X`, `env['X']`, `(env, 'X'` (config.ts's readers), commander's `.env('X')`. */
function namesRead(): Set<string> {
  const reads = [
    /\b(?:process\.env|env)\.([A-Z][A-Z0-9_]+)/g,
    /\b(?:process\.env|env)\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
    /\(\s*env,\s*['"]([A-Z][A-Z0-9_]+)['"]/g,
    /\.env\(['"]([A-Z][A-Z0-9_]+)['"]\)/g,
  ];
  const names = new Set<string>();
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const text = fs.readFileSync(file, 'utf8');
    for (const pattern of reads) for (const match of text.matchAll(pattern)) names.add(match[1]);
  }
  return names;
}

/** The names in the first column of the README's configuration table (`| \`X\`, \`Y\` | …`). */
function namesDocumented(): Set<string> {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const names = new Set<string>();
  for (const line of readme.split('\n')) {
    const first = /^\| ([^|]+) \|/.exec(line)?.[1];
    if (first === undefined) continue;
    for (const match of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1]);
  }
  return names;
}

describe("the README's environment table", () => {
  const read = namesRead();
  const documented = namesDocumented();

  it('has a row for every variable the code reads', () => {
    expect(read.size).toBeGreaterThan(25);
    expect([...read].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });

  it('names no variable the code does not read', () => {
    expect([...documented].filter((name) => !read.has(name)).sort()).toEqual([]);
  });
});
