import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, AdminApiError, withSigV4 } from '#admin-cli/admin-api';

/**
 * The admin CLI against a stage: each request SigV4-signed for execute-api with the operator's credentials.
 * A local server takes the request as API Gateway would receive it, and the test checks the signature by
 * AWS's published algorithm (the canonical request, the string to sign, the derived key), written out here.
 */

const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token',
};
const REGION = 'eu-west-1';
const NOW = new Date('2026-11-22T12:34:56Z');

type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };
let server: Server;
let baseUrl: string;
let received: Received[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const api = () =>
  adminApi(
    baseUrl,
    withSigV4(REGION, CREDENTIALS, () => NOW),
  );
const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The signature AWS expects for the request as received (docs: "Create a signed AWS API request", Signature Version 4). */
function expectedSignature(request: Received, signedHeaders: string[], scope: string): string {
  const url = new URL(request.url, baseUrl);
  const query = [...url.searchParams]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a], [b]) => (a! < b! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  // Not S3: each path segment is encoded once more.
  const path = url.pathname
    .split('/')
    .map((segment) => rfc3986(segment))
    .join('/');
  const headers = signedHeaders.map((name) => `${name}:${String(request.headers[name]).trim()}\n`).join('');
  const canonical = [request.method, path, query, headers, signedHeaders.join(';'), hex(request.body)].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', request.headers['x-amz-date'], scope, hex(canonical)].join('\n');
  const [day, region, service] = scope.split('/');
  const key = hmac(hmac(hmac(hmac(`AWS4${CREDENTIALS.secretAccessKey}`, day!), region!), service!), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

describe('the admin CLI signs its requests to a stage (SigV4, execute-api)', () => {
  it('signs method, path, query, host and body with the credentials, the region and the time', async () => {
    received = [];
    answer = { status: 200, body: '{"group": {"groupId": "g-1", "name": "G one"}}' };
    const answered = await api().call('putGroup', { params: { groupId: 'g-1' }, body: { name: 'G one' } });
    expect(answered).toEqual({ group: { groupId: 'g-1', name: 'G one' } });
    await api().call('listApps', { query: { groupId: 'g-1', q: 'a name', cursor: undefined } });

    const [put, list] = received as [Received, Received];
    expect(put).toMatchObject({ method: 'PUT', url: '/admin/v1/groups/g-1', body: '{"name":"G one"}' });
    expect(list).toMatchObject({ method: 'GET', url: '/admin/v1/apps?groupId=g-1&q=a+name', body: '' });
    for (const request of [put, list]) {
      const match = /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
        String(request.headers.authorization),
      );
      expect(match, String(request.headers.authorization)).not.toBeNull();
      const [, scope, signed, signature] = match!;
      expect(scope).toBe('20261122/eu-west-1/execute-api/aws4_request');
      expect(request.headers['x-amz-date']).toBe('20261122T123456Z');
      expect(request.headers['x-amz-security-token']).toBe('session-token');
      const signedHeaders = signed!.split(';');
      expect(signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']));
      expect(signature).toBe(expectedSignature(request, signedHeaders, scope!));
    }
    expect(put.headers.authorization).not.toContain(CREDENTIALS.secretAccessKey);
  });

  it("turns API Gateway's refusal and the service's error into the message the CLI prints", async () => {
    answer = { status: 403, body: '{"message":"Forbidden"}' };
    await expect(api().call('listGroups')).rejects.toEqual(new AdminApiError('the admin API answered 403: Forbidden'));
    answer = { status: 400, body: '{"ok":false,"error":{"code":"invalid_request","message":"name: must not be blank"}}' };
    await expect(api().call('putGroup', { params: { groupId: 'g' }, body: { name: '' } })).rejects.toEqual(
      new AdminApiError('name: must not be blank'),
    );
  });
});
