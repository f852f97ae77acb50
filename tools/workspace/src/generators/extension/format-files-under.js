// @ts-check
import { join } from 'node:path';

/**
 * Formats the files created or changed under `folder` with the workspace's Prettier configuration, as
 * `npm run format` would. Unlike devkit's `formatFiles`, files edited elsewhere (an app's catalogue,
 * tsconfig.base.json) keep every line the generator did not write. Without Prettier or a configuration for the
 * folder (a virtual test tree), the files stay as generated.
 *
 * @param {import('@nx/devkit').Tree} tree
 * @param {string} folder A path relative to the workspace root.
 */
export async function formatFilesUnder(tree, folder) {
  /** @type {typeof import('prettier') | undefined} */
  let prettier;
  try {
    prettier = await import('prettier');
  } catch {
    return;
  }
  for (const change of tree.listChanges()) {
    if (change.type === 'DELETE' || !change.path.startsWith(`${folder}/`) || !change.content) continue;
    const filepath = join(tree.root, change.path);
    const config = await prettier.resolveConfig(filepath);
    if (config === null) continue;
    const { ignored, inferredParser } = await prettier.getFileInfo(filepath);
    if (ignored || inferredParser === null) continue;
    tree.write(change.path, await prettier.format(change.content.toString('utf-8'), { ...config, filepath }));
  }
}
