import type { PortalServer } from './portal-harness.js';

// What the Overview, Billing and API & callbacks tests ask the HTTP API, the other surface that
// must agree with the portal.

export async function api(
  portal: PortalServer,
  path: string,
  init: { method?: string; apiKey?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${portal.baseUrl}/v2.1${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-api-key': init.apiKey ?? portal.organisationApiKey, ...init.headers },
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The organisation's balance in minor units, as GET /v2.1/organisation reports it. */
export async function apiBalance(portal: PortalServer, apiKey?: string): Promise<number> {
  const { status, body } = await api(
    portal,
    '/organisation',
    apiKey === undefined ? {} : { apiKey },
  );
  if (status !== 200) throw new Error(`GET /v2.1/organisation answered ${status}`);
  const org = (body as { organisations: { balance: number }[] }).organisations[0];
  if (org === undefined) throw new Error('GET /v2.1/organisation listed no organisation');
  return org.balance;
}

/** The value of a hidden input in a page. */
export function hiddenValue(page: string, name: string, occurrence = 0): string {
  const all = [...page.matchAll(new RegExp(`name="${name}" value="([^"]*)"`, 'g'))];
  const value = all[occurrence]?.[1];
  if (value === undefined) throw new Error(`no hidden field ${name} in the page`);
  return value;
}
