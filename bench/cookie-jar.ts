/**
 * One user's cookies, kept as a browser keeps them for one site: each Set-Cookie replaces the
 * cookie of its name, and an expired one (Max-Age <= 0, or Expires in the past) deletes it. So
 * the consistency-token cookie a write answered with goes out with that user's next requests.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  /** The Cookie header to send, or undefined when the jar is empty. */
  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }

  store(setCookies: readonly string[]): void {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      if (at <= 0) continue;
      const name = pair!.slice(0, at).trim();
      if (expired(attributes)) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(at + 1).trim());
    }
  }
}

function expired(attributes: readonly string[]): boolean {
  for (const attribute of attributes) {
    const [key, value = ''] = attribute.split('=').map((s) => s.trim());
    if (key!.toLowerCase() === 'max-age' && Number(value) <= 0) return true;
    if (key!.toLowerCase() === 'expires' && Date.parse(value) <= Date.now()) return true;
  }
  return false;
}
