// @portcullis/client as a team installs it: a scratch project outside the repository with the client, the client
// credentials extension (its grant strategy, MCP SEP-1046
// https://github.com/modelcontextprotocol/ext-auth/blob/main/specification/draft/oauth-client-credentials.mdx) and the
// official MCP client SDK, all from the local registry, whose script calls tools on the built protected server. The
// script discovers everything from the server's 401 (RFC 9728 metadata, then the RFC 8414 metadata of the
// authorization server) and obtains its token with the client credentials grant (RFC 6749 Section 4.4).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runNode, startBuiltStack, type BuiltStack } from '@portcullis/testing';
import { join } from 'node:path';
import { createScratchProject, published, type ScratchProject } from './support/scratch-project.js';
import { createMachineClient, type MachineClient } from './support/tokens.js';

/** What the scratch project's script prints: the tool results and the stored token's summary. */
interface ScriptOutput {
  created: { isError?: boolean; content: { type: string; text: string }[] };
  listed: { isError?: boolean; content: { type: string; text: string }[] };
  tokens: { issuer: string; clientId: string; scope: string[]; tokenType: string; hasRefreshToken: boolean };
}

// The script a team writes, with the package's public API only (libs/client/README.md).
const SCRIPT = `import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createAuthorizedFetch, mcpTransportOptions } from '@portcullis/client';
import { clientCredentialsExtension } from '@portcullis/extension-client-credentials';
import { ExtensionRegistry } from '@portcullis/extensions';

const { RESOURCE, ISSUER, CLIENT_ID, CLIENT_SECRET } = process.env;
const authorizedFetch = createAuthorizedFetch({
  resource: RESOURCE,
  clientCredentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, issuer: ISSUER },
  extensions: ExtensionRegistry.compose([clientCredentialsExtension]),
  grantStrategy: 'client-credentials',
});
const client = new Client({ name: 'nightly-job', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(RESOURCE), mcpTransportOptions(authorizedFetch)));
const created = await client.callTool({
  name: 'notes_create',
  arguments: { title: 'from a scratch project', body: 'installed from the registry' },
});
const listed = await client.callTool({ name: 'notes_list', arguments: {} });
const tokens = await authorizedFetch.tokens();
console.log(JSON.stringify({ created, listed, tokens }));
await client.close();
`;

describe('@portcullis/client installed alone in a scratch project', () => {
  let stack: BuiltStack;
  let project: ScratchProject;
  let machine: MachineClient;

  beforeAll(async () => {
    project = await createScratchProject('client', {
      'package.json': JSON.stringify({ name: 'nightly-job', private: true, type: 'module' }, null, 2),
      'main.js': SCRIPT,
    });
    const [started, installed] = await Promise.allSettled([
      startBuiltStack({
        authorizationServerEnv: { EXTENSIONS: 'client-credentials' },
        before: async (admin) => {
          machine = await createMachineClient(admin, 'Nightly job');
        },
      }),
      // The versions the registry has as `latest`: the ones just published.
      project.install(
        '@portcullis/client',
        '@portcullis/extension-client-credentials',
        '@portcullis/extensions',
        '@modelcontextprotocol/client@2.4.0',
      ),
    ]);
    if (started.status === 'fulfilled') stack = started.value;
    for (const outcome of [started, installed]) if (outcome.status === 'rejected') throw outcome.reason;
  }, 600_000);

  afterAll(async () => {
    await stack?.stop();
    await project?.remove();
  });

  it('has the published packages from the local registry', async () => {
    for (const name of [
      '@portcullis/client',
      '@portcullis/extension-client-credentials',
      '@portcullis/extensions',
    ]) {
      expect(await project.locked(name)).toEqual(await published(name));
    }
  });

  it('calls tools on the built protected server with a token it obtained by client credentials', async () => {
    const run = await runNode(join(project.dir, 'main.js'), [], {
      RESOURCE: stack.resource,
      ISSUER: stack.issuer,
      CLIENT_ID: machine.client_id,
      CLIENT_SECRET: machine.client_secret,
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const output = JSON.parse(run.stdout) as ScriptOutput;
    expect(output.created.isError).toBeFalsy();
    expect(output.listed.isError).toBeFalsy();
    expect(output.listed.content.map(({ text }) => text).join('\n')).toContain('from a scratch project');
    // The token is the client's own (no user, no refresh token), from the server the resource named.
    expect(output.tokens).toMatchObject({
      issuer: stack.issuer,
      clientId: machine.client_id,
      tokenType: 'Bearer',
      hasRefreshToken: false,
    });
  });
});
