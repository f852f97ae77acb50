// Rules kept: a person is admitted by a stable fact the provider states, never by a name they choose: their subject,
// an address's domain only when the provider says the address is verified (OpenID Connect Core 5.1
// `email_verified`; GitHub's verified primary address), membership of a GitHub organization or team as GitHub's API
// answers it (scope `read:org`). With no rules everyone the upstream signs in is admitted, as before.
import { z } from 'zod';

/** Who may sign in through the proxy (`UPSTREAM_ALLOWED`); a person matching any one rule is admitted. */
export interface AllowedUsers {
  /** The provider's stable subjects (GitHub's numeric ids as text). */
  readonly subjects: readonly string[];
  /** Domains of a verified address, lower case (`example.com`; subdomains are not included). */
  readonly emailDomains: readonly string[];
  /** GitHub organizations (`acme`). */
  readonly githubOrganizations: readonly string[];
  /** GitHub teams (`acme/platform`, the team's slug). */
  readonly githubTeams: readonly string[];
  /** Google Workspace domains (the ID token's `hd`), lower case. */
  readonly googleHostedDomains: readonly string[];
  /** Entra tenant IDs (the ID token's `tid`), lower case. */
  readonly entraTenants: readonly string[];
}

/** What the rules read of a signed-in person. */
export interface AllowedUserFacts {
  readonly subject: string;
  readonly profile: { readonly email?: string | null; readonly emailVerified?: boolean };
  /** Google: the Workspace domain the ID token's `hd` names. */
  readonly hostedDomain?: string;
  /** Entra: the tenant the validated ID token's `tid` names. */
  readonly tenantId?: string;
}

/** An organization or team name as GitHub allows it. */
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** An Entra tenant ID: a GUID (Microsoft identity platform, "ID token claims reference", `tid`). */
export const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const RulesSchema = z
  .strictObject({
    subjects: z.array(z.string().min(1).max(255)).optional(),
    email_domains: z
      .array(
        z
          .string()
          .transform((domain) => domain.toLowerCase())
          .pipe(z.string().regex(DOMAIN, 'must be a domain name')),
      )
      .optional(),
    github_organizations: z.array(z.string().regex(SLUG, 'must be a GitHub organization')).optional(),
    github_teams: z
      .array(
        z.string().refine((team) => {
          const [organization, slug, ...rest] = team.split('/');
          return rest.length === 0 && SLUG.test(organization ?? '') && SLUG.test(slug ?? '');
        }, 'must be organization/team'),
      )
      .optional(),
    google_hosted_domains: z
      .array(
        z
          .string()
          .transform((domain) => domain.toLowerCase())
          .pipe(z.string().regex(DOMAIN, 'must be a domain name')),
      )
      .optional(),
    entra_tenants: z
      .array(
        z
          .string()
          .transform((tenant) => tenant.toLowerCase())
          .pipe(z.string().regex(TENANT_ID, 'must be a tenant ID (a GUID)')),
      )
      .optional(),
  })
  .transform((rules): AllowedUsers => ({
    subjects: rules.subjects ?? [],
    emailDomains: rules.email_domains ?? [],
    githubOrganizations: rules.github_organizations ?? [],
    githubTeams: rules.github_teams ?? [],
    googleHostedDomains: rules.google_hosted_domains ?? [],
    entraTenants: rules.entra_tenants ?? [],
  }))
  .refine(
    (rules) => Object.values(rules).some((list: readonly string[]) => list.length > 0),
    'must name at least one subject, email domain, GitHub organization or team, Google hosted domain or Entra ' +
      'tenant (unset admits everyone)',
  );

/**
 * `UPSTREAM_ALLOWED`: a JSON object of `subjects`, `email_domains`, `github_organizations`, `github_teams`,
 * `google_hosted_domains` and `entra_tenants` (each a list; see the README). Unknown members are refused, so a misspelt rule never admits everyone.
 */
export const AllowedUsersEnvSchema = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be a JSON object' });
      return z.NEVER;
    }
  })
  .pipe(RulesSchema);

/** Whether the rules ask GitHub about organizations or teams (and so need scope `read:org`). */
export function asksGithubMembership(rules: AllowedUsers | undefined): boolean {
  // Also asked by the configuration's refinements, which zod runs beside an issue in this very variable, on its
  // unparsed value.
  const lists: unknown[] = [rules?.githubOrganizations, rules?.githubTeams];
  return lists.some((list) => Array.isArray(list) && list.length > 0);
}

/**
 * Whether `person` matches a rule; `isMember` asks the provider about a GitHub organization or `organization/team`,
 * and is asked only when no rule that needs no request matched.
 */
export async function admits(
  rules: AllowedUsers,
  person: AllowedUserFacts,
  isMember: (group: string) => Promise<boolean>,
): Promise<boolean> {
  if (rules.subjects.includes(person.subject)) return true;
  const { email, emailVerified } = person.profile;
  if (email && emailVerified === true) {
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (rules.emailDomains.includes(domain)) return true;
  }
  if (person.hostedDomain && rules.googleHostedDomains.includes(person.hostedDomain.toLowerCase()))
    return true;
  if (person.tenantId && rules.entraTenants.includes(person.tenantId.toLowerCase())) return true;
  for (const group of [...rules.githubOrganizations, ...rules.githubTeams]) {
    if (await isMember(group)) return true;
  }
  return false;
}
