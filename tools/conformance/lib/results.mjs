// Reads the suite's per-scenario results (`checks.json` under --output-dir) and decides each scenario's verdict.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

// The suite names result directories `<scenario>-<ISO timestamp with : and . replaced by ->`.
const TIMESTAMP_SUFFIX = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

function findCheckFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findCheckFiles(path));
    else if (entry === 'checks.json') found.push(path);
  }
  return found;
}

/**
 * Every scenario that ran, with its checks. `strictWarnings`: a WARNING fails the scenario, as the suite's own
 * `--suite` summary counts it; under `--requirements` only FAILURE does.
 */
export function readScenarioResults(outputDir, { strictWarnings }) {
  let files;
  try {
    files = findCheckFiles(outputDir);
  } catch {
    return [];
  }
  return files
    .map((file) => {
      const scenario = relative(outputDir, join(file, '..'))
        .split(sep)
        .join('/')
        .replace(TIMESTAMP_SUFFIX, '');
      const checks = JSON.parse(readFileSync(file, 'utf8'));
      const failures = checks.filter(
        (check) => check.status === 'FAILURE' || (strictWarnings && check.status === 'WARNING'),
      );
      return {
        scenario,
        passed: failures.length === 0,
        checks: checks.length,
        failures: failures.map((check) => ({
          id: check.id,
          status: check.status,
          description: check.errorMessage ?? check.description,
        })),
      };
    })
    .sort((a, b) => a.scenario.localeCompare(b.scenario));
}

/** Whether a scenario is about authorization (the client's scope): the suite names them `auth/...`. */
export function isAuthScenario(scenario) {
  return scenario.startsWith('auth/');
}

/** The scored client scenarios of a requirement set (`requirements/<revision>.yaml` of the suite). */
export async function scoredClientScenarios(yamlModule, requirementsFile) {
  const { parse } = await import(yamlModule);
  const document = parse(readFileSync(requirementsFile, 'utf8'));
  return new Set(document.client ?? []);
}
