/**
 * `portcullis conformance <server-url>`: the client the public MCP conformance suite starts.
 *
 * The suite passes the scenario in `MCP_CONFORMANCE_SCENARIO`, scenario data in `MCP_CONFORMANCE_CONTEXT` (JSON;
 * `client_id`, `client_secret` and `issuer` for pre-registration; `private_key_pem` and `signing_algorithm` for a
 * client that authenticates with `private_key_jwt`, RFC 7523 2.2) and the protocol version in
 * `MCP_CONFORMANCE_PROTOCOL_VERSION`. The client authorizes headlessly (the suite's mock authorization servers
 * approve without a user; github.com/modelcontextprotocol/conformance), with a fresh in-memory store, as a
 * generic MCP client: it connects, lists the tools and calls every tool that takes no required argument. Nothing
 * here depends on the scenario's name; the authorization rules come from the revision of that protocol version
 * (`2025-06-18`, `2025-11-25` or `2026-07-28`), and the latest revision's for any other version. A client
 * given a secret uses the client credentials grant (MCP SEP-1046) wherever the server lists it in
 * `grant_types_supported`, and the authorization code flow elsewhere. A context with an enterprise IdP
 * (`idp_id_token`, `idp_token_endpoint`, `idp_client_id`) makes the client exchange that ID token for an ID-JAG and
 * redeem it with the jwt-bearer grant (MCP SEP-990) instead, where the server lists that grant. A context with a
 * workload JWT (`valid_jwt`) makes the client present it with the jwt-bearer grant (MCP SEP-1933), as `client_id`
 * when the context names one, and nothing else: a refusal ends the run. Wherever the server accepts DPoP (its
 * metadata, or a `DPoP` challenge) and the authorization server offers it (`dpop_signing_alg_values_supported`, MCP
 * SEP-1932), the tokens are DPoP-bound, as with every command (the command line composes the DPoP client unless
 * `--no-dpop`).
 */
import {
  CLIENT_ASSERTION_ALGORITHMS,
  ClientAssertionKeyError,
  MemoryTokenStore,
  importClientAssertionKey,
  type ClientAssertionAlgorithm,
  type ClientAssertionKey,
  type PreRegisteredClient,
} from '@portcullis/client';
import {
  idJagStrategy,
  type IdJagStrategyOptions,
} from '@portcullis/extension-enterprise-managed-authorization';
import type { WorkloadIdentityStrategyOptions } from '@portcullis/extension-workload-identity';
import { isRevisionId, LATEST_REVISION, type RevisionId } from '@portcullis/revisions';
import { authorizedFetchFor, preRegisteredClient } from '../authorization.js';
import { connectMcp } from '../mcp-session.js';
import { UsageError, serverUrlArgument } from '../options.js';
import { printToolResult } from './call.command.js';
import type { Command } from './command.js';

interface ConformanceContext {
  readonly client_id?: unknown;
  readonly client_secret?: unknown;
  readonly issuer?: unknown;
  readonly private_key_pem?: unknown;
  readonly signing_algorithm?: unknown;
  readonly idp_id_token?: unknown;
  readonly idp_token_endpoint?: unknown;
  readonly idp_client_id?: unknown;
  readonly valid_jwt?: unknown;
}

function readContext(raw: string | undefined): ConformanceContext {
  if (raw === undefined || raw === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null ? (value as ConformanceContext) : {};
  } catch {
    throw new UsageError('MCP_CONFORMANCE_CONTEXT is not JSON');
  }
}

function contextClient(context: ConformanceContext): PreRegisteredClient | undefined {
  if (typeof context.client_id !== 'string') return undefined;
  return {
    clientId: context.client_id,
    ...(typeof context.client_secret === 'string' ? { clientSecret: context.client_secret } : {}),
    ...(typeof context.issuer === 'string' ? { issuer: context.issuer } : {}),
  };
}

/** The context's private key (`private_key_pem`, signed with `signing_algorithm` when it names one), if any. */
async function contextKey(context: ConformanceContext): Promise<ClientAssertionKey | undefined> {
  if (typeof context.private_key_pem !== 'string') return undefined;
  const algorithm = (CLIENT_ASSERTION_ALGORITHMS as readonly unknown[]).includes(context.signing_algorithm)
    ? (context.signing_algorithm as ClientAssertionAlgorithm)
    : undefined;
  try {
    return await importClientAssertionKey(
      context.private_key_pem,
      algorithm === undefined ? {} : { algorithm },
    );
  } catch (error) {
    const reason = error instanceof ClientAssertionKeyError ? error.message : 'not a usable private key';
    throw new UsageError(`MCP_CONFORMANCE_CONTEXT private_key_pem cannot be used: ${reason}`);
  }
}

/**
 * The enterprise IdP of the context (MCP SEP-990): the user's ID token, the IdP's token endpoint and the client's ID
 * there, if the context names them.
 *
 * @see https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/enterprise-managed-authorization.mdx
 */
function contextIdJagClient(context: ConformanceContext): IdJagStrategyOptions | undefined {
  if (typeof context.idp_id_token !== 'string' || typeof context.idp_token_endpoint !== 'string') {
    return undefined;
  }
  const client: IdJagStrategyOptions = {
    idToken: context.idp_id_token,
    idpTokenEndpoint: context.idp_token_endpoint,
    ...(typeof context.idp_client_id === 'string' ? { idpClientId: context.idp_client_id } : {}),
  };
  try {
    idJagStrategy(client);
  } catch (error) {
    const reason = error instanceof TypeError ? error.message : 'not usable';
    throw new UsageError(`MCP_CONFORMANCE_CONTEXT enterprise IdP cannot be used: ${reason}`);
  }
  return client;
}

/**
 * The workload of the context (MCP SEP-1933): its JWT, `valid_jwt`, if the context has one. The other JWTs a
 * context may carry (`wrong_audience_jwt`, `expired_jwt`) are the server's to refuse, never the client's to send.
 *
 * @see https://github.com/modelcontextprotocol/modelcontextprotocol/pull/1933
 */
function contextWorkloadToken(context: ConformanceContext): WorkloadIdentityStrategyOptions | undefined {
  if (typeof context.valid_jwt !== 'string') return undefined;
  const jwt = context.valid_jwt;
  return { token: () => jwt };
}

/** The authorization revision for a protocol version of the suite. */
export function revisionForProtocolVersion(protocolVersion: string): RevisionId {
  return isRevisionId(protocolVersion) ? protocolVersion : LATEST_REVISION;
}

export const conformanceCommand: Command = async ({ options, positionals, output, env }) => {
  const serverUrl = serverUrlArgument(positionals, 'conformance');
  const protocolVersion = env['MCP_CONFORMANCE_PROTOCOL_VERSION'] ?? LATEST_REVISION;
  const revision = options.revision ?? revisionForProtocolVersion(protocolVersion);
  const context = readContext(env['MCP_CONFORMANCE_CONTEXT']);
  const client = preRegisteredClient(options) ?? contextClient(context);
  const clientKey = options.clientKey ?? (await contextKey(context));
  output.info(
    `Conformance scenario ${env['MCP_CONFORMANCE_SCENARIO'] ?? '(unnamed)'}: protocol ${protocolVersion}, revision ${revision}`,
  );
  const authorizedFetch = authorizedFetchFor({
    serverUrl,
    options: {
      ...options,
      revision,
      headless: true,
      clientId: client?.clientId,
      clientSecret: client?.clientSecret,
      issuer: client?.issuer,
      clientKey,
      // An ID token in the context: enterprise-managed authorization (MCP SEP-990), with the client above at the MCP
      // authorization server (client_secret_basic with its secret).
      idJagClient: options.idJagClient ?? contextIdJagClient(context),
      // A workload JWT in the context: workload identity federation (MCP SEP-1933), with the context's client_id and
      // no client authentication; a refusal is final, never a reason to authorize a user.
      workloadToken: options.workloadToken ?? contextWorkloadToken(context),
      // A confidential client (a secret in the context) obtains tokens with the client credentials grant where
      // the server lists it (MCP SEP-1046), and authorizes a user otherwise.
      clientCredentials:
        options.clientCredentials ||
        client?.clientSecret !== undefined ||
        // A client with a private key in the context too (private_key_jwt, RFC 7523 2.2).
        (client !== undefined && clientKey !== undefined),
    },
    output,
    store: new MemoryTokenStore(),
    grantStrategyFallback: 'authorization_code',
  });
  const session = await connectMcp(serverUrl, authorizedFetch, { kind: 'exact', version: protocolVersion });
  try {
    const { tools } = await session.client.listTools();
    output.info(`  · Tools: ${tools.map((tool) => tool.name).join(', ') || '(none)'}`);
    for (const tool of tools) {
      const required = (tool.inputSchema as { required?: unknown }).required;
      if (Array.isArray(required) && required.length > 0) continue;
      const result = await session.client.callTool({ name: tool.name, arguments: {} });
      printToolResult(output, result.content, result.structuredContent);
    }
    return 0;
  } finally {
    await session.close();
  }
};
