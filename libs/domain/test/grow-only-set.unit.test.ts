import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GrowOnlySet } from '../src/grow-only-set';

describe('GrowOnlySet', () => {
  it('each version holds exactly what was added on its own path, whichever earlier version later adds start from', () => {
    fc.assert(
      fc.property(
        // Each step adds a member to some earlier version: the newest (the common case), or an
        // older one, a branch that must not see what the newer versions added.
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f')), { maxLength: 40 }),
        (steps) => {
          const versions = [GrowOnlySet.empty<string>()];
          const models: string[][] = [[]];
          for (const [pick, member] of steps) {
            const from = pick % versions.length;
            versions.push(versions[from]!.add(member));
            const model = models[from]!;
            models.push(model.includes(member) ? model : [...model, member]);
            versions.forEach((version, i) => {
              expect([...version]).toEqual(models[i]);
              expect(version.size).toBe(models[i]!.length);
              for (const candidate of ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
                expect(version.has(candidate)).toBe(models[i]!.includes(candidate));
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('weighs each version as the sum over its own members, whichever versions were weighed before', () => {
    const weight = (member: string) => member.charCodeAt(0);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.nat()), {
          maxLength: 40,
        }),
        (steps) => {
          const versions = [GrowOnlySet.empty<string>()];
          for (const [pick, member, weighed] of steps) {
            versions.push(versions[pick % versions.length]!.add(member));
            const version = versions[weighed % versions.length]!;
            expect(version.weigh(weight)).toBe([...version].reduce((sum, m) => sum + weight(m), 0));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('weighs a member once for all the versions that share it', () => {
    const weighed: string[] = [];
    const weight = (member: string) => (weighed.push(member), 1);
    let set = GrowOnlySet.empty<string>();
    for (const member of ['a', 'b', 'c']) {
      set = set.add(member);
      expect(set.weigh(weight)).toBe(set.size);
    }
    expect(weighed).toEqual(['a', 'b', 'c']);
  });

  it('answers itself for a member it holds, and is built from a list as by adding each in turn', () => {
    const set = GrowOnlySet.of(['x', 'y', 'x']);
    expect([...set]).toEqual(['x', 'y']);
    expect(set.add('y')).toBe(set);
  });

  it('compares by its members in order, not by what later versions added to the map it shares', () => {
    const older = GrowOnlySet.empty<string>().add('x');
    older.add('y');
    expect(older).toEqual(GrowOnlySet.of(['x']));
    expect(older).not.toEqual(GrowOnlySet.of(['z']));
  });
});
