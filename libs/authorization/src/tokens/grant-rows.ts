// The rows of the raw statements that read a refresh token or an authorization code together with its grant (and,
// for a refresh token, the grant's login session) in one round trip, and how they map back to the Prisma models.
import {
  Prisma,
  type AuthorizationCode,
  type AuthorizationGrant,
  type LoginSession,
  type RefreshToken,
} from '@portcullis/persistence';

/** The columns of the grant `g` of a joined read, each prefixed `g_` (see {@link GrantRow}). */
export const GRANT_COLUMNS = Prisma.sql`
  g.id AS g_id, g.client_id AS g_client_id, g.user_id AS g_user_id, g.resource AS g_resource,
  COALESCE(g.scopes, '{}') AS g_scopes, g.session_id AS g_session_id, g.offline_access AS g_offline_access,
  g.auth_time AS g_auth_time, COALESCE(g.amr, '{}') AS g_amr, g.authorization_request AS g_authorization_request,
  g.attachments AS g_attachments, g.absolute_expires_at AS g_absolute_expires_at, g.revoked_at AS g_revoked_at,
  g.created_at AS g_created_at`;

/** A grant's columns as {@link GRANT_COLUMNS} reads them. */
export interface GrantRow {
  g_id: string;
  g_client_id: string;
  g_user_id: string;
  g_resource: string;
  g_scopes: string[];
  g_session_id: string | null;
  g_offline_access: boolean;
  g_auth_time: Date;
  g_amr: string[];
  g_authorization_request: Prisma.JsonValue;
  g_attachments: Prisma.JsonValue;
  g_absolute_expires_at: Date;
  g_revoked_at: Date | null;
  g_created_at: Date;
}

/** The grant of a joined read. */
export function grantOf(row: GrantRow): AuthorizationGrant {
  return {
    id: row.g_id,
    clientId: row.g_client_id,
    userId: row.g_user_id,
    resource: row.g_resource,
    scopes: row.g_scopes,
    sessionId: row.g_session_id,
    offlineAccess: row.g_offline_access,
    authTime: row.g_auth_time,
    amr: row.g_amr,
    authorizationRequest: row.g_authorization_request,
    attachments: row.g_attachments,
    absoluteExpiresAt: row.g_absolute_expires_at,
    revokedAt: row.g_revoked_at,
    createdAt: row.g_created_at,
  };
}

/** A row of a refresh token read with its grant (`g_`) and the grant's login session (`s_`). */
export interface RefreshFamilyRow extends GrantRow {
  token_hash: string;
  grant_id: string;
  scopes: string[];
  confirmation: Prisma.JsonValue;
  expires_at: Date;
  consumed_at: Date | null;
  successor_hash: string | null;
  replay: string | null;
  created_at: Date;
  s_id: string | null;
  s_expires_at: Date | null;
  s_revoked_at: Date | null;
}

export function refreshTokenOf(row: RefreshFamilyRow): RefreshToken {
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    scopes: row.scopes,
    confirmation: row.confirmation,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
    successorHash: row.successor_hash,
    replay: row.replay,
    createdAt: row.created_at,
  };
}

/** The login session of a {@link RefreshFamilyRow}; null when the grant has none or its row is gone. */
export function sessionOf(
  row: RefreshFamilyRow,
): Pick<LoginSession, 'id' | 'expiresAt' | 'revokedAt'> | null {
  return row.s_id === null || row.s_expires_at === null
    ? null
    : { id: row.s_id, expiresAt: row.s_expires_at, revokedAt: row.s_revoked_at };
}

/**
 * A row of an authorization code read with its grant (`g_`), joined outer: every grant column is null when the
 * grant's row is gone.
 */
export type CodeGrantRow = { [K in keyof GrantRow]: GrantRow[K] | null } & {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  redirect_uri_sent: boolean;
  code_challenge: string;
  nonce: string | null;
  confirmation: Prisma.JsonValue;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: Date;
  replay: string | null;
  interaction_id: string | null;
  answer: string | null;
};

export function codeOf(row: CodeGrantRow): AuthorizationCode {
  return {
    codeHash: row.code_hash,
    grantId: row.grant_id,
    clientId: row.client_id,
    redirectUri: row.redirect_uri,
    redirectUriSent: row.redirect_uri_sent,
    codeChallenge: row.code_challenge,
    nonce: row.nonce,
    confirmation: row.confirmation,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
    createdAt: row.created_at,
    replay: row.replay,
    interactionId: row.interaction_id,
    answer: row.answer,
  };
}

/** The grant of a {@link CodeGrantRow}, or null when its row is gone. */
export function codeGrantOf(row: CodeGrantRow): AuthorizationGrant | null {
  return row.g_id === null ? null : grantOf(row as GrantRow);
}
