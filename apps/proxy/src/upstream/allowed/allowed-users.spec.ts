import { describe, expect, it } from '@jest/globals';
import { envSchema } from '../../env.schema.js';
import { admits, type AllowedUsers } from './allowed-users.js';

const NONE: AllowedUsers = {
  subjects: [],
  emailDomains: [],
  githubOrganizations: [],
  githubTeams: [],
  googleHostedDomains: [],
  entraTenants: [],
};
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const GITHUB = {
  UPSTREAM_PROVIDER: 'github',
  UPSTREAM_CLIENT_ID: 'Ov23li0',
  UPSTREAM_CLIENT_SECRET: 's3cret',
};

const issuesOf = (env: Record<string, string>) => {
  const result = envSchema.safeParse(env);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
};

describe('who UPSTREAM_ALLOWED admits', () => {
  const nobody = async () => false;

  it('admits a listed subject, and nobody else by rules that need no request', async () => {
    const rules = { ...NONE, subjects: ['583231'] };
    expect(await admits(rules, { subject: '583231', profile: {} }, nobody)).toBe(true);
    expect(await admits(rules, { subject: '5832310', profile: {} }, nobody)).toBe(false);
  });

  it('admits an email domain only from an address the provider verified, the whole domain and no other', async () => {
    const rules = { ...NONE, emailDomains: ['example.com'] };
    const person = (email: string, emailVerified: boolean) => ({
      subject: '1',
      profile: { email, emailVerified },
    });
    expect(await admits(rules, person('Ada@EXAMPLE.com', true), nobody)).toBe(true);
    expect(await admits(rules, person('ada@example.com', false), nobody)).toBe(false);
    expect(await admits(rules, person('ada@evil-example.com', true), nobody)).toBe(false);
    expect(await admits(rules, person('ada@example.com.evil.test', true), nobody)).toBe(false);
    expect(await admits(rules, person('"ada@example.com"@evil.test', true), nobody)).toBe(false);
  });

  it('asks the provider about each organization and team until one answers yes', async () => {
    const asked: string[] = [];
    const rules = {
      ...NONE,
      githubOrganizations: ['acme'],
      githubTeams: ['other/platform', 'other/security'],
    };
    const member = async (group: string) => {
      asked.push(group);
      return group === 'other/platform';
    };
    expect(await admits(rules, { subject: '1', profile: {} }, member)).toBe(true);
    expect(asked).toEqual(['acme', 'other/platform']);
  });

  it("admits a Google Workspace domain only from the ID token's hd, never from the address", async () => {
    const rules = { ...NONE, googleHostedDomains: ['acme.example'] };
    const verified = { email: 'ada@acme.example', emailVerified: true };
    expect(
      await admits(rules, { subject: '1', profile: verified, hostedDomain: 'Acme.example' }, nobody),
    ).toBe(true);
    expect(await admits(rules, { subject: '1', profile: verified }, nobody)).toBe(false);
    expect(await admits(rules, { subject: '1', profile: {}, hostedDomain: 'other.example' }, nobody)).toBe(
      false,
    );
  });

  it("admits an Entra tenant only from the ID token's tid", async () => {
    const rules = { ...NONE, entraTenants: [TENANT] };
    expect(await admits(rules, { subject: '1', profile: {}, tenantId: TENANT.toUpperCase() }, nobody)).toBe(
      true,
    );
    expect(await admits(rules, { subject: '1', profile: {} }, nobody)).toBe(false);
    expect(
      await admits(
        rules,
        { subject: '1', profile: {}, tenantId: '9188040d-6c67-4c5b-b112-36a304b66dad' },
        nobody,
      ),
    ).toBe(false);
  });
});

describe('UPSTREAM_ALLOWED in the configuration', () => {
  it('reads the JSON rules, domains in lower case, and asks GitHub for read:org when they name organizations', () => {
    const env = envSchema.parse({
      ...GITHUB,
      UPSTREAM_ALLOWED: JSON.stringify({ github_organizations: ['acme'], email_domains: ['Example.com'] }),
    });
    expect(env.UPSTREAM_ALLOWED).toEqual({
      subjects: [],
      emailDomains: ['example.com'],
      githubOrganizations: ['acme'],
      githubTeams: [],
      googleHostedDomains: [],
      entraTenants: [],
    });
    expect(env.UPSTREAM_SCOPES).toEqual(['read:user', 'user:email', 'read:org']);
  });

  it('refuses what would admit someone by mistake: bad JSON, an unknown rule, no rule, a bad name', () => {
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: '{github_organizations: ["acme"]}' })).toEqual([
      'UPSTREAM_ALLOWED must be a JSON object',
    ]);
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: '{"github_organisations":["acme"]}' })).toContain(
      'UPSTREAM_ALLOWED Unrecognized key: "github_organisations"',
    );
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: '{"subjects":[]}' })).toHaveLength(1);
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: '{"github_teams":["acme"]}' })).toHaveLength(1);
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: '{"email_domains":["*.example.com"]}' })).toHaveLength(1);
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: '{"entra_tenants":["contoso.example"]}' })).toHaveLength(
      1,
    );
  });

  it('refuses GitHub rules without GitHub, or without a scope that lets GitHub answer them', () => {
    const rules = JSON.stringify({ github_teams: ['acme/platform'] });
    expect(issuesOf({ UPSTREAM_ALLOWED: rules })).toEqual([
      'UPSTREAM_ALLOWED names GitHub organizations or teams, which only UPSTREAM_PROVIDER=github can check',
    ]);
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: rules, UPSTREAM_SCOPES: 'read:user' })).toEqual([
      'UPSTREAM_SCOPES must include read:org: UPSTREAM_ALLOWED names GitHub organizations or teams',
    ]);
    expect(issuesOf({ ...GITHUB, UPSTREAM_ALLOWED: rules, UPSTREAM_SCOPES: 'read:user read:org' })).toEqual(
      [],
    );
  });
});
