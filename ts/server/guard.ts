/**
 * Loopback is not enough: any web page in the user's browser can send requests to 127.0.0.1.
 * - DNS rebinding: a request whose `Host` is not `127.0.0.1:<port>` or `localhost:<port>` is
 *   refused (a rebound name arrives with the attacker's host name), as is one whose request
 *   line names another host (the absolute form, `GET http://evil.example/status`).
 * - Cross-site requests: a request with a foreign `Origin`, or one the browser marks as coming
 *   from another site (`Sec-Fetch-Site`), is refused, except a plain navigation to one of the
 *   pages that do no work (`PAGES`): a link on another site may open the REPL, but not start
 *   the full analysis (`GET /report…`) or a look-up. No CORS header is ever sent, so no other
 *   origin may read an answer.
 */
import { ApiError } from './errors.js';

/** What another site may link to: pages that start no work. */
const PAGES = new Set(['/', '/repl', '/repl.js']);

/** The origins the server itself is reached at (the browser REPL's page comes from one). */
export function ownOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/**
 * Throws a 403 `forbidden` ApiError when the request must be refused. `url` is the request's
 * URL as the adapter made it: from the request line when that names a host (`GET
 * http://evil.example/status`, the absolute form, whose host HTTP says a server takes instead of
 * the `Host` header), else from the `Host` header. Both are checked.
 */
export function checkRequest(headers: Headers, method: string, path: string, port: number, url: string): void {
  const hostHeader = headers.get('host')?.toLowerCase();
  let target: string | undefined;
  try {
    target = new URL(url).host.toLowerCase();
  } catch {
    target = undefined;
  }
  for (const host of [hostHeader, target]) {
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      throw new ApiError(
        403,
        'forbidden',
        `Host '${host ?? ''}' refused: this server answers only http://127.0.0.1:${port} and http://localhost:${port} (protection against DNS rebinding)`,
      );
    }
  }
  const origin = headers.get('origin');
  if (origin !== null && !ownOrigins(port).includes(origin.toLowerCase())) {
    throw new ApiError(403, 'forbidden', `cross-origin request from '${origin}' refused: only pages served by this server may call it`);
  }
  const site = headers.get('sec-fetch-site');
  const navigation = headers.get('sec-fetch-mode') === 'navigate' && (method === 'GET' || method === 'HEAD') && PAGES.has(path);
  if (site !== null && site !== 'same-origin' && site !== 'none' && !navigation) {
    throw new ApiError(
      403,
      'forbidden',
      `request from another site (Sec-Fetch-Site: ${site}) refused: only pages served by this server may call it (a link from elsewhere may open only ${[...PAGES].join(', ')})`,
    );
  }
}
