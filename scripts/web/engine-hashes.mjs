// Content hashes of the engine files the page and the widget script load (web/public/engine/,
// copied to dist/engine/): the builds define __ATTNLAB_ENGINE_HASHES__ with them, and
// web/core/engine.js puts each file's hash in its URL (engine/attnlab.wasm?v=…). A release's page
// thus asks for its own engine by a URL no HTTP cache holds from the release before; the Worker's
// script is a Vite chunk whose name already carries its hash.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const engineHashes = (root) => hashFiles(path.join(root, 'web', 'public', 'engine'));

// {file: hash} of the engine files in dir (dist/engine/ for a built page).
export function hashFiles(dir) {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => /^attnlab[\w-]*\.(mjs|wasm|js)$/.test(f))
      .sort()
      .map((f) => [
        f,
        createHash('sha256')
          .update(readFileSync(path.join(dir, f)))
          .digest('hex')
          .slice(0, 12),
      ])
  );
}
