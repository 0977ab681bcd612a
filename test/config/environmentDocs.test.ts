/**
 * Every environment variable the code reads has its row in the README's configuration table, and
 * every row there names a variable the code reads: the table is the one place an operator looks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The code that runs: the service (`src/`) and the build scripts (`scripts/`). */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(?:ts|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

const VARIABLE = /^[A-Z][A-Z0-9_]+$/;

/** `process.env`, or a name `env` (config.ts's parameter, the edge handler's runtime env). */
const isEnv = (node: ts.Node): boolean =>
  (ts.isIdentifier(node) && node.text === 'env') ||
  (ts.isPropertyAccessExpression(node) &&
    node.name.text === 'env' &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'process');

const nameOf = (node: ts.Node | undefined): string | null =>
  node !== undefined && ts.isStringLiteralLike(node) && VARIABLE.test(node.text) ? node.text : null;

const calleeName = (call: ts.CallExpression): string | null => (ts.isIdentifier(call.expression) ? call.expression.text : null);

/** The name a function declaration or a `const f = (…) =>` binds, with its parameters' names. */
function functionOf(node: ts.Node): { name: string; parameters: string[]; body: ts.Node } | null {
  const parameters = (fn: ts.SignatureDeclarationBase) => fn.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : ''));
  if (ts.isFunctionDeclaration(node) && node.name && node.body)
    return { name: node.name.text, parameters: parameters(node), body: node.body };
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
    const fn = node.initializer;
    if (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) return { name: node.name.text, parameters: parameters(fn), body: fn.body };
  }
  return null;
}

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

/**
 * The names the code reads, in every form it reads them: `process.env.X` and `env.X` (also with
 * `?.`), `env['X']`, commander's `.env('X')`, and a reader by name — a function that reads
 * `env[name]` for one of its parameters, or hands that parameter to another such reader
 * (config.ts's `envValue(env, 'X', …)`, `countOf`, `secondsAsMs`, `path_('X')`) — called with the
 * name as a literal. Readers are found across files first, to a fixed point, then their calls.
 */
function namesRead(sources: ts.SourceFile[]): Set<string> {
  /** reader function name → the index of the parameter that names the variable */
  const readers = new Map<string, number>();
  for (let grown = true; grown;) {
    grown = false;
    for (const source of sources) {
      walk(source, (node) => {
        const fn = functionOf(node);
        if (fn === null || readers.has(fn.name)) return;
        walk(fn.body, (inner) => {
          if (readers.has(fn.name)) return;
          let named: string | null = null;
          if (ts.isElementAccessExpression(inner) && isEnv(inner.expression) && ts.isIdentifier(inner.argumentExpression))
            named = inner.argumentExpression.text;
          if (ts.isCallExpression(inner)) {
            const at = readers.get(calleeName(inner) ?? '');
            const argument = at === undefined ? undefined : inner.arguments[at];
            if (argument !== undefined && ts.isIdentifier(argument)) named = argument.text;
          }
          const index = named === null ? -1 : fn.parameters.indexOf(named);
          if (index >= 0) {
            readers.set(fn.name, index);
            grown = true;
          }
        });
      });
    }
  }
  const names = new Set<string>();
  const add = (name: string | null) => name !== null && names.add(name);
  for (const source of sources) {
    walk(source, (node) => {
      if (ts.isPropertyAccessExpression(node) && isEnv(node.expression) && VARIABLE.test(node.name.text)) add(node.name.text);
      if (ts.isElementAccessExpression(node) && isEnv(node.expression)) add(nameOf(node.argumentExpression));
      if (!ts.isCallExpression(node)) return;
      if (ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'env') add(nameOf(node.arguments[0]));
      const at = readers.get(calleeName(node) ?? '');
      if (at !== undefined) add(nameOf(node.arguments[at]));
    });
  }
  return names;
}

const parse = (file: string, text: string) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

const codeRead = () =>
  namesRead(
    ['src', 'scripts'].flatMap((dir) => sourceFiles(path.join(root, dir))).map((file) => parse(file, fs.readFileSync(file, 'utf8'))),
  );

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

describe('the names the code reads', () => {
  it('are found in every form the code reads them', () => {
    const text = `
      const a = process.env.DIRECT ?? process.env['INDEXED'];
      export function handler(request: Request, env: { ASSETS?: string } = {}) { return env.EDGE ?? env?.OPTIONAL; }
      function envValue(env: NodeJS.ProcessEnv, name: string) { return env[name]; }
      function countOf(env: NodeJS.ProcessEnv, name: string, max = 9) { return envValue(env, name); }
      const path_ = (name: string) => envValue(env, name);
      envValue(env, 'BY_READER');
      envValue(
        env,
        'ON_LINES',
      );
      countOf(env, 'BY_WRAPPER', 5);
      path_('BY_CLOSURE');
      program.option('--built-at <seconds>').env('BY_COMMANDER');
      const child = { env: { ...process.env, WRITTEN: 'x' } };
      envValue(env, name);
      label('NOT_A_READ');
    `;
    expect([...namesRead([parse('forms.ts', text)])].sort()).toEqual(
      ['BY_CLOSURE', 'BY_COMMANDER', 'BY_READER', 'BY_WRAPPER', 'DIRECT', 'EDGE', 'INDEXED', 'ON_LINES', 'OPTIONAL'].sort(),
    );
  });
});

describe("the README's environment table", () => {
  const read = codeRead();
  const documented = namesDocumented();

  it('has a row for every variable the code reads', () => {
    expect(read.size).toBeGreaterThan(25);
    expect([...read].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });

  it('names no variable the code does not read', () => {
    expect([...documented].filter((name) => !read.has(name)).sort()).toEqual([]);
  });
});
