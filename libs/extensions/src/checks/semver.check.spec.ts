import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isSemver } from './semver.check.js';

describe('isSemver', () => {
  // The valid and invalid examples of semver.org (the test set behind its recommended regular expression).
  it.each([
    '0.0.4',
    '1.2.3',
    '10.20.30',
    '1.1.2-prerelease+meta',
    '1.1.2+meta',
    '1.1.2+meta-valid',
    '1.0.0-alpha',
    '1.0.0-beta',
    '1.0.0-alpha.beta',
    '1.0.0-alpha.beta.1',
    '1.0.0-alpha.1',
    '1.0.0-alpha0.valid',
    '1.0.0-alpha.0valid',
    '1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay',
    '1.0.0-rc.1+build.1',
    '2.0.0-rc.1+build.123',
    '1.2.3-beta',
    '10.2.3-DEV-SNAPSHOT',
    '1.2.3-SNAPSHOT-123',
    '2.0.0+build.1848',
    '2.0.1-alpha.1227',
    '1.0.0-alpha+beta',
    '1.2.3----RC-SNAPSHOT.12.9.1--.12+788',
    '1.2.3----R-S.12.9.1--.12+meta',
    '1.2.3----RC-SNAPSHOT.12.9.1--.12',
    '1.0.0+0.build.1-rc.10000aaa-kk-0.1',
    '1.0.0-0A.is.legal',
    `${Number.MAX_SAFE_INTEGER}.0.0`,
  ])('accepts %j', (version) => {
    expect(isSemver(version)).toBe(true);
  });

  it.each([
    '1',
    '1.2',
    '1.2.3-0123',
    '1.2.3-0123.0123',
    '1.1.2+.123',
    '+invalid',
    '-invalid',
    '-invalid+invalid',
    '-invalid.01',
    'alpha',
    'alpha.beta',
    'alpha.beta.1',
    'alpha.1',
    'alpha+beta',
    'alpha_beta',
    'alpha.',
    'alpha..',
    'beta',
    '1.0.0-alpha_beta',
    '-alpha.',
    '1.0.0-alpha..',
    '1.0.0-alpha..1',
    '1.0.0-alpha...1',
    '1.0.0-alpha....1',
    '1.0.0-alpha.....1',
    '1.0.0-alpha......1',
    '1.0.0-alpha.......1',
    '01.1.1',
    '1.01.1',
    '1.1.01',
    '1.2.3.DEV',
    '1.2-SNAPSHOT',
    '1.2.31.2.3----RC-SNAPSHOT.12.09.1--..12+788',
    '1.2-RC-SNAPSHOT',
    '-1.0.3-gamma+b7718',
    '+justmeta',
    '9.8.7+meta+meta',
    '9.8.7-whatever+meta+meta',
    'v1.2.3',
    ' 1.2.3',
    '1.2.3 ',
    '1.2.3\n',
    '１.2.3',
    `${Number.MAX_SAFE_INTEGER + 1}.0.0`,
    `1.0.0-${'a'.repeat(256)}`,
    '',
  ])('refuses %j', (version) => {
    expect(isSemver(version)).toBe(false);
  });

  it.each([undefined, null, 1, { major: 1 }])('refuses the non-string %p', (version) => {
    expect(isSemver(version)).toBe(false);
  });

  const numeric = fc.nat({ max: 1_000_000 });
  const identifier = fc.oneof(
    numeric.map(String),
    fc.stringMatching(/^[0-9A-Za-z-]{0,6}[A-Za-z-][0-9A-Za-z-]{0,6}$/),
  );

  it('accepts every MAJOR.MINOR.PATCH with any well-formed pre-release and build', () => {
    fc.assert(
      fc.property(
        fc.tuple(numeric, numeric, numeric),
        fc.array(identifier, { maxLength: 3 }),
        fc.array(fc.stringMatching(/^[0-9A-Za-z-]{1,8}$/), { maxLength: 3 }),
        ([major, minor, patch], pre, build) => {
          const version =
            `${major}.${minor}.${patch}` +
            (pre.length ? `-${pre.join('.')}` : '') +
            (build.length ? `+${build.join('.')}` : '');
          expect(isSemver(version)).toBe(true);
        },
      ),
    );
  });

  it('refuses every version with a leading zero in a numeric part', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 2 }), (n, position) => {
        const parts = ['1', '2', '3'];
        parts[position] = `0${n}`;
        expect(isSemver(parts.join('.'))).toBe(false);
      }),
    );
  });
});
