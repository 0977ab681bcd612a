/** Before any test: every built artifact the tests run is current with its sources (scripts/artifacts.mjs). */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function ensureArtifacts(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  execFileSync(process.execPath, [path.join(root, 'scripts', 'artifacts.mjs'), 'ensure'], { cwd: root, stdio: 'inherit' });
}
