import type { FastifyReply, FastifyRequest } from 'fastify';

// The portal's cookies: the session (`esim_session`), the sign-in form's CSRF token before a
// session exists (`esim_csrf`) and the one-request flash message (`esim_flash`). All HttpOnly,
// SameSite=Lax, Path=/portal, Secure when PORTAL_COOKIE_SECURE (on in production).

export const SESSION_COOKIE = 'esim_session';
export const PRE_SESSION_CSRF_COOKIE = 'esim_csrf';
export const FLASH_COOKIE = 'esim_flash';

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface CookieOptions {
  readonly secure: boolean;
  /** Seconds; a session cookie (ends with the browser) when undefined. */
  readonly maxAge?: number;
}

export function setCookie(
  reply: FastifyReply,
  name: string,
  value: string,
  options: CookieOptions,
): void {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    'Path=/portal',
    'HttpOnly',
    'SameSite=Lax',
  ];
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  if (options.secure) parts.push('Secure');
  const existing = reply.getHeader('set-cookie');
  const list = Array.isArray(existing)
    ? existing.map(String)
    : existing === undefined
      ? []
      : [String(existing)];
  reply.header('set-cookie', [...list, parts.join('; ')]);
}

export function clearCookie(reply: FastifyReply, name: string, secure: boolean): void {
  setCookie(reply, name, '', { secure, maxAge: 0 });
}
