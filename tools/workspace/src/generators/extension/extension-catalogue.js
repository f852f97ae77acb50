// @ts-check
import { applyChangesToString, ChangeType } from '@nx/devkit';
import ts from 'typescript';

/** The object an app's `src/extensions.ts` exports: the extensions it composes, by the name `EXTENSIONS` uses. */
export const CATALOGUE = 'AVAILABLE_EXTENSIONS';

/**
 * Where an app keeps its catalogue, relative to the app's root.
 */
export const CATALOGUE_FILE = 'src/extensions.ts';

/**
 * Adds one entry to an app's catalogue: an import of the extension after the file's last import, and the line
 * `'<name>': <constName>,` (with a comment naming the extension id) at the end of `AVAILABLE_EXTENSIONS`. The rest of
 * the file is left byte for byte as it was.
 *
 * @param {string} source The catalogue file's text.
 * @param {string} path Its path, for the messages.
 * @param {{ name: string, importPath: string, constName: string, extensionId: string }} entry
 * @returns {string} The new text.
 * @throws Error when the file has no `AVAILABLE_EXTENSIONS` object, or already has the name.
 */
export function addToCatalogue(source, path, entry) {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const catalogue = findCatalogue(file);
  if (catalogue === undefined) {
    throw new Error(`${path} exports no ${CATALOGUE} object literal to add the extension to.`);
  }
  if (catalogue.properties.some((property) => propertyName(property) === entry.name)) {
    throw new Error(`${path}: ${CATALOGUE} already has an extension named ${JSON.stringify(entry.name)}.`);
  }
  const lastImport = file.statements.filter(ts.isImportDeclaration).at(-1);
  const importLine = `import { ${entry.constName} } from '${entry.importPath}';`;
  const key = /^[A-Za-z_$][\w$]*$/.test(entry.name) ? entry.name : `'${entry.name}'`;
  const last = catalogue.properties.at(-1);
  /** @type {import('@nx/devkit').StringChange[]} */
  const changes = [
    lastImport === undefined
      ? { type: ChangeType.Insert, index: 0, text: `${importLine}\n` }
      : { type: ChangeType.Insert, index: lastImport.getEnd(), text: `\n${importLine}` },
  ];
  if (last !== undefined && !catalogue.properties.hasTrailingComma) {
    changes.push({ type: ChangeType.Insert, index: last.getEnd(), text: ',' });
  }
  // Before the closing brace, which prettier puts on its own line: the entry goes in as the object's last lines.
  const closingBrace = catalogue.getEnd() - 1;
  const lineStart = source.lastIndexOf('\n', closingBrace - 1) + 1;
  const ownLine = source.slice(lineStart, closingBrace).trim() === '';
  changes.push({
    type: ChangeType.Insert,
    index: ownLine ? lineStart : closingBrace,
    text: `${ownLine ? '' : '\n'}  // ${entry.extensionId} (${entry.importPath})\n  ${key}: ${entry.constName},\n`,
  });
  return applyChangesToString(source, changes);
}

/**
 * @param {ts.SourceFile} file
 * @returns {ts.ObjectLiteralExpression | undefined}
 */
function findCatalogue(file) {
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || declaration.name.text !== CATALOGUE) continue;
      const initializer = declaration.initializer;
      if (initializer !== undefined && ts.isObjectLiteralExpression(initializer)) return initializer;
    }
  }
  return undefined;
}

/**
 * @param {ts.ObjectLiteralElementLike} property
 * @returns {string | undefined}
 */
function propertyName(property) {
  const name = property.name;
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}
