import { describe, expect, it } from '@jest/globals';
import { namesMetadataDocument } from './metadata-document-url.check.js';

describe('namesMetadataDocument', () => {
  it.each([
    'https://app.example.com/client.json',
    'https://app.example.com:8443/oauth/client?v=2',
    'https://127.0.0.1:8443/client.json',
  ])('takes the Client Identifier URL %s', (clientId) => {
    expect(namesMetadataDocument(clientId, false)).toBe(true);
  });

  it.each([
    'client-1',
    'http://app.example.com/client.json',
    'https://app.example.com',
    'https://app.example.com/',
    'https://app.example.com/client.json#frag',
    'https://user:pw@app.example.com/client.json',
    'https://app.example.com/./client.json',
    'https://app.example.com/a/../client.json',
    'https://app.example.com/a/%2e%2e/client.json',
    'http://localhost:8080/client.json',
  ])('leaves %s to the registered clients', (clientId) => {
    expect(namesMetadataDocument(clientId, false)).toBe(false);
  });

  it('takes http on a loopback host only in the development mode', () => {
    for (const clientId of [
      'http://localhost:8080/client.json',
      'http://127.0.0.1:8080/c',
      'http://[::1]:8080/c',
    ]) {
      expect(namesMetadataDocument(clientId, true)).toBe(true);
    }
    for (const clientId of [
      'http://app.example.com/client.json',
      'http://localhost:8080/',
      'http://localhost/a/../c',
    ]) {
      expect(namesMetadataDocument(clientId, true)).toBe(false);
    }
  });
});
