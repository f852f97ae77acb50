import type { ServerResponse } from 'node:http';
import type { NodeServerResponseLike } from '@modelcontextprotocol/node';

/**
 * The response the MCP SDK writes to, with one difference: an SSE response's headers are sent as soon as they are
 * written. Node holds `writeHead` headers back until the first body chunk, and an SSE stream's first chunk may be
 * the keep-alive 15 seconds later, so without this a client would wait that long to learn its stream is open.
 */
export function flushingEventStreams(response: ServerResponse): NodeServerResponseLike {
  return {
    writeHead(statusCode, headers) {
      response.writeHead(statusCode, headers);
      const type = headers?.['content-type'] ?? headers?.['Content-Type'];
      if (typeof type === 'string' && type.startsWith('text/event-stream')) response.flushHeaders();
      return response;
    },
    write: (chunk) => response.write(chunk),
    end: (chunk) => (chunk === undefined ? response.end() : response.end(chunk)),
    on: (event, listener) => response.on(event, listener),
    get destroyed() {
      return response.destroyed;
    },
  };
}
