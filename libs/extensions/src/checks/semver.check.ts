// Rule: an extension version is a Semantic Versioning 2.0.0 string (semver.org, section 2, 9 and 10).
// - MAJOR.MINOR.PATCH, non-negative integers without leading zeros; no `v` prefix, no surrounding spaces.
// - An optional pre-release after `-`: dot-separated identifiers of [0-9A-Za-z-], none empty, numeric ones
//   without leading zeros.
// - Optional build metadata after `+`: dot-separated identifiers of [0-9A-Za-z-], none empty.
// - Like npm's semver, at most 256 characters and each of MAJOR, MINOR, PATCH at most
//   Number.MAX_SAFE_INTEGER, so a version always compares exactly as numbers.

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;
const MAX_LENGTH = 256;

/**
 * Whether `version` is a strict Semantic Versioning 2.0.0 version such as `1.0.0`, `2.1.0-rc.1` or
 * `1.0.0+build.5`.
 *
 * @see https://semver.org/spec/v2.0.0.html#semantic-versioning-specification-semver
 */
export function isSemver(version: unknown): version is string {
  if (typeof version !== 'string' || version.length > MAX_LENGTH) return false;
  const match = SEMVER.exec(version);
  if (!match) return false;
  return match.slice(1, 4).every((part) => Number(part) <= Number.MAX_SAFE_INTEGER);
}
