// Loads the node flavour of the Embind module (build/wasm/attnlab-node.cjs) for node tests,
// handing it the .wasm bytes directly so no fetch is involved.
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const wasmDir = path.join(root, 'build', 'wasm');

export async function loadNodeEngine() {
  const js = path.join(wasmDir, 'attnlab-node.cjs');
  if (!existsSync(js)) throw new Error(`${js} is missing: run npm run build:engine first`);
  const require = createRequire(import.meta.url);
  const create = require(js);
  return create({ wasmBinary: readFileSync(path.join(wasmDir, 'attnlab-node.wasm')) });
}
