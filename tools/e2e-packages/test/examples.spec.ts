// The three servers of examples/, each copied into a scratch project outside the repository, installed from the local
// registry (the published @portcullis/resource-server and the public packages they name), built with their own tsc,
// and run against the built authorization server. Each must keep MCP authorization's promises
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization): a request without a token gets a
// 401 naming its metadata and the scope it needs (RFC 6750 Section 3, RFC 9728 Section 5.1), the RFC 9728 Section 3
// metadata is served, a token for it is accepted and reaches the tool, a token for another resource is refused
// (RFC 8707, MCP "Token Audience Binding and Validation"), a token without the scope gets 403 insufficient_scope.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parseWwwAuthenticate } from '@portcullis/protocol';
import { freePort, spawnApp, startBuiltStack, type BuiltStack, type SpawnedApp } from '@portcullis/testing';
import { join } from 'node:path';
import { copyExample, published, type ScratchProject } from './support/scratch-project.js';
import { clientCredentialsToken, createMachineClient, type MachineClient } from './support/tokens.js';

const EXAMPLES = ['express-mcp', 'web-standard', 'nest'] as const;
type ExampleName = (typeof EXAMPLES)[number];

interface RunningExample {
  readonly resource: string;
  readonly metadataUrl: string;
  readonly project: ScratchProject;
  readonly server: SpawnedApp;
}

/** A copy of the example, installed from the registry and built as its README says. */
async function installExample(name: ExampleName): Promise<ScratchProject> {
  const project = await copyExample(name);
  try {
    await project.install();
    await project.npm('run', 'build');
    return project;
  } catch (error) {
    await project.remove();
    throw error;
  }
}

/** An MCP request the servers would serve, for the requests they must refuse before serving anything. */
function postMcp(resource: string, token?: string): Promise<Response> {
  return fetch(resource, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}

/** The parameters of the response's one Bearer challenge. */
function bearerChallenge(response: Response): Record<string, string> {
  const challenges = parseWwwAuthenticate(response.headers.get('www-authenticate') ?? '').filter(
    (challenge) => challenge.scheme === 'bearer',
  );
  expect(challenges).toHaveLength(1);
  return challenges[0]!.params;
}

const examples = new Map<ExampleName, RunningExample>();
let stack: BuiltStack;
let caller: MachineClient;

beforeAll(async () => {
  const resources = new Map<ExampleName, string>();
  for (const name of EXAMPLES) resources.set(name, `http://localhost:${await freePort()}/mcp`);
  // The installs (network and disk) overlap the stack's start; whatever started is stopped if anything failed.
  const [started, ...installed] = await Promise.allSettled([
    startBuiltStack({
      authorizationServerEnv: { EXTENSIONS: 'client-credentials' },
      extraResources: [...resources.values()].map((uri) => ({
        uri,
        scopes_supported: ['notes:read', 'notes:write'],
      })),
      before: async (admin) => {
        caller = await createMachineClient(admin, 'Example caller');
      },
    }),
    ...EXAMPLES.map((name) => installExample(name)),
  ]);
  const failure = [started, ...installed].find((outcome) => outcome.status === 'rejected');
  if (failure) {
    if (started.status === 'fulfilled') await started.value.stop();
    for (const outcome of installed) if (outcome.status === 'fulfilled') await outcome.value.remove();
    throw failure.reason;
  }
  stack = (started as PromiseFulfilledResult<BuiltStack>).value;
  const projects = installed.map((outcome) => (outcome as PromiseFulfilledResult<ScratchProject>).value);
  EXAMPLES.forEach((name, index) => {
    const resource = new URL(resources.get(name)!);
    const server = spawnApp(join(projects[index]!.dir, 'dist/main.js'), {
      ISSUER: stack.issuer,
      RESOURCE: resource.href,
      PORT: resource.port,
      HOST: '127.0.0.1',
    });
    examples.set(name, {
      resource: resource.href,
      metadataUrl: `${resource.origin}/.well-known/oauth-protected-resource${resource.pathname}`,
      project: projects[index]!,
      server,
    });
  });
  await Promise.all([...examples.values()].map(({ server }) => server.ready));
}, 600_000);

afterAll(async () => {
  for (const { server, project } of examples.values()) {
    await server.stop('SIGTERM');
    await project.remove();
  }
  await stack?.stop();
});

describe.each(EXAMPLES)(
  'examples/%s, installed from the registry, with the built authorization server',
  (name) => {
    const example = () => examples.get(name)!;

    it('runs the published @portcullis/resource-server, installed from the local registry', async () => {
      expect(await example().project.locked('@portcullis/resource-server')).toEqual(
        await published('@portcullis/resource-server'),
      );
    });

    it('answers a request without a token with 401 naming its metadata and the scope the tool needs', async () => {
      const response = await postMcp(example().resource);
      expect(response.status).toBe(401);
      expect(bearerChallenge(response)).toMatchObject({
        resource_metadata: example().metadataUrl,
        scope: 'notes:read',
      });
    });

    it('serves its RFC 9728 metadata naming the authorization server', async () => {
      const response = await fetch(example().metadataUrl);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: example().resource,
        authorization_servers: [stack.issuer],
        scopes_supported: ['notes:read'],
      });
    });

    it('accepts a token the authorization server issued for it: the tool runs as the token’s subject', async () => {
      const token = await clientCredentialsToken(stack.issuer, caller, {
        resource: example().resource,
        scope: 'notes:read',
      });
      const client = new Client({ name: 'e2e-packages', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(example().resource), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const result = await client.callTool({ name: 'notes_list', arguments: {} });
        expect(result.isError).toBeFalsy();
        expect(result.content).toEqual([{ type: 'text', text: `notes of ${caller.client_id}: none yet` }]);
      } finally {
        await client.close();
      }
    });

    it('refuses a token issued for another resource with 401 invalid_token', async () => {
      const token = await clientCredentialsToken(stack.issuer, caller, {
        resource: stack.resource,
        scope: 'notes:read',
      });
      const response = await postMcp(example().resource, token);
      expect(response.status).toBe(401);
      expect(bearerChallenge(response)).toMatchObject({
        error: 'invalid_token',
        resource_metadata: example().metadataUrl,
      });
      expect(await response.json()).toMatchObject({ error: 'invalid_token' });
    });

    it('refuses a token without the tool’s scope with 403 insufficient_scope naming it', async () => {
      const token = await clientCredentialsToken(stack.issuer, caller, {
        resource: example().resource,
        scope: 'notes:write',
      });
      const response = await postMcp(example().resource, token);
      expect(response.status).toBe(403);
      expect(bearerChallenge(response)).toMatchObject({
        error: 'insufficient_scope',
        scope: 'notes:read',
        resource_metadata: example().metadataUrl,
      });
      expect(await response.json()).toMatchObject({ error: 'insufficient_scope' });
    });
  },
);
