import { generateKeyPair, exportJWK, SignJWT } from 'jose';
import { createPublicKey, verify, randomUUID } from 'node:crypto';
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);
const N = 5000; const proofs = [];
for (let i = 0; i < N; i++) proofs.push(await new SignJWT({ jti: randomUUID(), htm: 'GET' }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(privateKey));
let t = performance.now();
for (let i = 0; i < N; i++) createPublicKey({ key: jwk, format: 'jwk' });
console.log('createPublicKey jwk', ((performance.now() - t) / N * 1000).toFixed(1), 'us/op');
const key = createPublicKey({ key: jwk, format: 'jwk' });
t = performance.now();
for (const p of proofs) { const [h, c, s] = p.split('.'); if (!verify('sha256', Buffer.from(`${h}.${c}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))) throw 1; JSON.parse(Buffer.from(c,'base64url').toString()); JSON.parse(Buffer.from(h,'base64url').toString()); }
console.log('node verify + parse', ((performance.now() - t) / N * 1000).toFixed(1), 'us/op');
