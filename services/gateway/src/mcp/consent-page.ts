import type { AgentScope } from '@shop/contracts';
import { isAgentScope } from './agent-oauth-model';

const scopeMeaning: Record<AgentScope, string> = {
  catalog: 'search the catalogue and read product details',
  cart: 'read your cart, add items to it and remove them',
  checkout: 'create orders for items in your cart (you still approve every payment yourself)',
  orders: 'read your orders and their status',
};

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; color: #1d1d1f; }
li { margin: .4rem 0; }
button { font-size: 1rem; padding: .5rem 1.2rem; margin-right: .8rem; cursor: pointer; }
.redirect { color: #555; font-size: .9rem; word-break: break-all; }
</style>
</head>
<body>
${body}
</body>
</html>`;

/**
 * What the signed-in shopper sees before an agent may act for them: its name (as it registered
 * it, so shown as text, never markup), each scope it asks for, and where the answer goes. The
 * form carries only the consent's one-time id, which is bound to this shopper.
 */
export function consentPage(input: {
  clientName: string;
  scopes: string[];
  redirectUri: string;
  consentId: string;
}): string {
  const scopes = input.scopes
    .filter(isAgentScope)
    .map((scope) => `<li><strong>${scope}</strong>: ${escapeHtml(scopeMeaning[scope])}</li>`)
    .join('\n');
  return page(
    'Connect an agent',
    `<h1>Connect <span id="agent-name">${escapeHtml(input.clientName)}</span>?</h1>
<p>This agent asks to act for you in the shop. It would be able to:</p>
<ul id="scopes">
${scopes}
</ul>
<p>Payments always wait for your own approval. You can disconnect the agent from your profile at any time.</p>
<p class="redirect">You will be sent back to ${escapeHtml(input.redirectUri)}</p>
<form method="post" action="/oauth/authorize">
<input type="hidden" name="consent" value="${escapeHtml(input.consentId)}">
<button type="submit" name="decision" value="approve" id="approve">Approve</button>
<button type="submit" name="decision" value="refuse" id="refuse">Refuse</button>
</form>`,
  );
}

/** An authorization request that cannot be answered with a redirect (unknown agent, unregistered redirect URI). */
export function authorizationErrorPage(message: string): string {
  return page(
    'Cannot connect this agent',
    `<h1>Cannot connect this agent</h1>\n<p>${escapeHtml(message)}</p>`,
  );
}
