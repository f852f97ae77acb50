// The tool calls that end each replayed flow: the official MCP client over Streamable HTTP with the access token
// as a Bearer credential, `notes_create` when the token may write and then `notes_list`.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** A note as `notes_list` and `notes_create` answer it. */
export interface ListedNote {
  readonly id: string;
  readonly title: string;
}

export interface NotesToolCalls {
  /** The tools called, in order. */
  readonly called: string[];
  /** The note `notes_create` made, when the token allowed it. */
  readonly created?: ListedNote;
  /** What `notes_list` answered. */
  readonly listed: ListedNote[];
}

const textOf = (result: unknown): string => {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  const text = content.find((part) => part.type === 'text')?.text;
  if (text === undefined) throw new Error(`a tool answered without text: ${JSON.stringify(result)}`);
  return text;
};

/** Connects to `resource` with `accessToken` and calls the notes tools `scopes` allow. */
export async function callNotesTools(
  resource: string,
  accessToken: string,
  scopes: readonly string[],
  title: string,
): Promise<NotesToolCalls> {
  const client = new Client({ name: 'portcullis-shipping-client-replay', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(resource), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    const called: string[] = [];
    let created: ListedNote | undefined;
    if (scopes.includes('notes:write') || scopes.includes('notes')) {
      const result = await client.callTool({ name: 'notes_create', arguments: { title } });
      called.push('notes_create');
      if (result.isError) throw new Error(`notes_create failed: ${textOf(result)}`);
      created = JSON.parse(textOf(result)) as ListedNote;
    }
    const listing = await client.callTool({ name: 'notes_list', arguments: {} });
    called.push('notes_list');
    if (listing.isError) throw new Error(`notes_list failed: ${textOf(listing)}`);
    return { called, ...(created ? { created } : {}), listed: JSON.parse(textOf(listing)) as ListedNote[] };
  } finally {
    await client.close();
  }
}
