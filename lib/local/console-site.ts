import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildConsole, CONSOLE_HEADERS, CONSOLE_ROOT, LOCAL_CONSOLE_CONFIG } from '../console-build.js';

/**
 * The console served by the local runtime under /console/, on the API's own
 * origin so the page calls the admin API with no CORS; signed in with the
 * admin key. In AWS the same files come from CloudFront (lib/constructs/admin-console.ts).
 */
export function consoleSite() {
  // Built at the first request for it: a runtime nobody opens the console on (every test's) never pays for the build.
  let built: ReturnType<typeof buildConsole> | undefined;
  const filesOf = () => {
    if (built) return built;
    built = buildConsole();
    built.set('config.json', { type: 'application/json', body: Buffer.from(JSON.stringify(LOCAL_CONSOLE_CONFIG)) });
    return built;
  };
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (path === CONSOLE_ROOT.slice(0, -1)) {
      res.writeHead(308, { Location: CONSOLE_ROOT, ...CONSOLE_HEADERS }).end();
      return true;
    }
    if (!path.startsWith(CONSOLE_ROOT)) return false;
    const file = filesOf().get(path.slice(CONSOLE_ROOT.length) || 'index.html');
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(file ? 405 : 404, { 'Content-Type': 'text/plain; charset=utf-8', ...CONSOLE_HEADERS }).end(file ? 'Method Not Allowed' : 'Not Found');
      return true;
    }
    res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length, ...CONSOLE_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    return true;
  };
}
