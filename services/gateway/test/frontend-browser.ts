import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ProviderSandbox } from '@shop/sandbox-provider';

/**
 * The existing frontend's way of calling the API: it runs on another origin and sends
 * `credentials: 'include'` on every call, and it posts `email` with every JWT exchange.
 */
export const frontendOrigin = 'http://localhost:3000';

export interface Answer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

/**
 * What a browser does for the frontend's `fetch(url, {credentials: 'include'})` from another
 * origin: a preflight for anything but a simple request, the cookie jar sent and filled, and a
 * response the page may read only when the server allows exactly this origin with credentials.
 */
export class FrontendBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** What a script on the frontend's origin writes to `document.cookie` (the provider's SDK does). */
  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  async fetch(path: string, init: { method: string; body?: unknown }): Promise<Response> {
    const { method } = init;
    const headers: Record<string, string> = { origin: frontendOrigin };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && (method !== 'POST' || init.body !== undefined))
      await this.preflight(path, method, init.body);
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      credentials: 'include',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    expect(
      [
        response.headers.get('access-control-allow-origin'),
        response.headers.get('access-control-allow-credentials'),
      ],
      `${method} ${path}: a browser hands the page a credentialed response only with these`,
    ).toEqual([frontendOrigin, 'true']);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair!.split('=');
      if (/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    return response;
  }

  private async preflight(path: string, method: string, body: unknown): Promise<void> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: frontendOrigin,
        'access-control-request-method': method,
        ...(body !== undefined ? { 'access-control-request-headers': 'content-type' } : {}),
      },
    });
    expect(response.status, `preflight of ${method} ${path}`).toBeLessThan(300);
    expect(response.headers.get('access-control-allow-origin')).toBe(frontendOrigin);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')?.split(/,\s*/)).toContain(method);
    if (body !== undefined) {
      expect(response.headers.get('access-control-allow-headers')?.toLowerCase().split(/,\s*/)).toContain(
        'content-type',
      );
    }
  }

  /** A header the page's script can read: safelisted, or exposed by the server. */
  exposed(response: Response, name: string): string | null {
    const exposedHeaders = (response.headers.get('access-control-expose-headers') ?? '')
      .toLowerCase()
      .split(/,\s*/);
    return exposedHeaders.includes(name.toLowerCase()) ? response.headers.get(name) : null;
  }

  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await this.fetch(path, { method, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : {} };
  }
}

/** The frontend's sign-in: the provider's JWT and the email it signed in with, then onboarding. */
export async function signInLikeTheFrontend(
  browser: FrontendBrowser,
  provider: ProviderSandbox,
  options: { onboard?: boolean } = {},
) {
  const email = `${randomUUID().slice(0, 8)}@example.com`;
  const issued = await provider.issueToken(email);
  const session = await browser.call('POST', '/api/auth/session', { jwt: issued.jwt, email });
  expect([session.status, session.json]).toEqual([200, { success: true }]);
  if (options.onboard !== false) await onboardLikeTheFrontend(browser);
  return { email, issued };
}

/** The onboarding page's three mutations, as it sends them (OnboardingStepResponse each). */
export async function onboardLikeTheFrontend(browser: FrontendBrowser): Promise<void> {
  const steps: [string, unknown][] = [
    ['step-1', { displayName: 'Ada' }],
    [
      'step-2',
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        street: '1 Main Street',
        country: 'US',
        city: 'Austin',
        state: 'TX',
        zip: '78701',
      },
    ],
    ['step-3', { topsSize: 'M', bottomsSize: '32', footwearSize: '42' }],
  ];
  for (const [index, [step, body]] of steps.entries()) {
    const saved = await browser.call('POST', `/api/onboarding/${step}`, body);
    expect([saved.status, saved.json]).toEqual([200, { success: true, step: index + 1 }]);
  }
}
