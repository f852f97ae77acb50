import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ExtensionRegistryError } from './extension-registry.error.js';
import { compareIds, orderByRequirements, type Requiring } from './requirement.order.js';

/** A set of distinct ids, each requiring some of the ids before it: always acyclic. */
const acyclic = fc
  .uniqueArray(fc.stringMatching(/^[a-e]{1,3}$/), { minLength: 1, maxLength: 9 })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id, i) => fc.subarray(ids.slice(0, i)).map((requires): Requiring => ({ id, requires }))),
    ),
  );

function shuffled<T>(items: readonly T[]) {
  return fc.shuffledSubarray([...items], { minLength: items.length, maxLength: items.length });
}

/** The definition, checked position by position: the least id among those whose requirements are all placed. */
function isLeastTopologicalOrder(order: readonly Requiring[], all: readonly Requiring[]): boolean {
  const placed = new Set<string>();
  for (const item of order) {
    const ready = all.filter(
      (candidate) => !placed.has(candidate.id) && candidate.requires.every((r) => placed.has(r)),
    );
    const least = ready.map(({ id }) => id).sort(compareIds)[0];
    if (item.id !== least) return false;
    placed.add(item.id);
  }
  return placed.size === all.length;
}

describe('orderByRequirements', () => {
  it('puts every item after what it requires, least id first among the ready ones', () => {
    fc.assert(
      fc.property(acyclic, (items) => {
        expect(isLeastTopologicalOrder(orderByRequirements(items), items)).toBe(true);
      }),
    );
  });

  it('returns the same order for every order of the input', () => {
    fc.assert(
      fc.property(
        acyclic.chain((items) => fc.tuple(shuffled(items), shuffled(items))),
        ([first, second]) => {
          const ids = (items: readonly Requiring[]) => orderByRequirements(items).map(({ id }) => id);
          expect(ids(first)).toEqual(ids(second));
        },
      ),
    );
  });

  it('orders by id alone when nothing requires anything, comparing code units rather than locale', () => {
    const ids = ['com.example/b', 'com.example/B', 'com.example/a', 'com.example/é', 'com.example/z'];
    const order = orderByRequirements(ids.map((id) => ({ id, requires: [] }))).map(({ id }) => id);
    expect(order).toEqual([
      'com.example/B',
      'com.example/a',
      'com.example/b',
      'com.example/z',
      'com.example/é',
    ]);
  });

  it('refuses every cycle, naming a real one: each id requires the next, the last requires the first', () => {
    const withCycle = acyclic
      .filter((items) => items.length >= 1)
      .chain((items) =>
        fc.tuple(fc.constant(items), fc.nat({ max: items.length - 1 }), fc.nat({ max: items.length - 1 })),
      )
      .map(([items, from, to]) => {
        // Two items (or one, twice) made to require each other: a cycle of one or two, maybe beside others.
        const [low, high] = from <= to ? [from, to] : [to, from];
        const lowId = (items[low] as Requiring).id;
        const highId = (items[high] as Requiring).id;
        return items.map((item) =>
          item.id === lowId
            ? { ...item, requires: [...item.requires, highId] }
            : item.id === highId
              ? { ...item, requires: [...item.requires, lowId] }
              : item,
        );
      });
    fc.assert(
      fc.property(withCycle, (items) => {
        let error: unknown;
        try {
          orderByRequirements(items);
        } catch (thrown) {
          error = thrown;
        }
        expect(error).toBeInstanceOf(ExtensionRegistryError);
        const { code, extensionIds } = error as ExtensionRegistryError;
        expect(code).toBe('requirement_cycle');
        const byId = new Map(items.map((item) => [item.id, item]));
        extensionIds.forEach((id, i) => {
          const next = extensionIds[(i + 1) % extensionIds.length] as string;
          expect(byId.get(id)?.requires).toContain(next);
        });
        expect(new Set(extensionIds).size).toBe(extensionIds.length);
      }),
    );
  });
});
