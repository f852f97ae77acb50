import { ExtensionRegistryError } from './extension-registry.error.js';

/**
 * The part of an extension the order depends on.
 *
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export interface Requiring {
  readonly id: string;
  readonly requires: readonly string[];
}

/**
 * Orders ids by UTF-16 code units: the same on every machine and in every locale, unlike `localeCompare`.
 *
 * @see https://tc39.es/ecma262/#sec-islessthan
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * Puts every item after the items it requires and, among the items whose requirements are all placed, the
 * smallest id first: the lexicographically least topological order, which depends only on the set of items and
 * never on the order they were given in. Every required id must be among the items.
 *
 * @throws ExtensionRegistryError `requirement_cycle`, naming the ids of one cycle in requirement order.
 * @see https://modelcontextprotocol.io/extensions/overview
 */
export function orderByRequirements<T extends Requiring>(items: readonly T[]): T[] {
  const waiting = new Map(items.map((item) => [item.id, item]));
  const placed = new Set<string>();
  const ordered: T[] = [];
  while (waiting.size > 0) {
    let next: T | undefined;
    for (const item of waiting.values()) {
      const ready = item.requires.every((id) => placed.has(id));
      if (ready && (next === undefined || compareIds(item.id, next.id) < 0)) next = item;
    }
    if (next === undefined) throw cycleError(waiting);
    waiting.delete(next.id);
    placed.add(next.id);
    ordered.push(next);
  }
  return ordered;
}

// Every waiting item requires at least one other waiting item (else it would be ready), so following
// requirements from any of them must come back to an item already seen: that loop is a cycle.
function cycleError(waiting: ReadonlyMap<string, Requiring>): ExtensionRegistryError {
  const start = [...waiting.keys()].sort(compareIds)[0] as string;
  const path: string[] = [];
  let current = start;
  while (!path.includes(current)) {
    path.push(current);
    const item = waiting.get(current) as Requiring;
    current = [...item.requires].filter((id) => waiting.has(id)).sort(compareIds)[0] as string;
  }
  const cycle = path.slice(path.indexOf(current));
  const first = cycle.indexOf([...cycle].sort(compareIds)[0] as string);
  const rotated = [...cycle.slice(first), ...cycle.slice(0, first)];
  return new ExtensionRegistryError(
    'requirement_cycle',
    `Extensions require each other in a cycle: ${[...rotated, rotated[0]].join(' -> ')}.`,
    rotated,
  );
}
