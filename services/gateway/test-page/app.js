/* global FormData, crypto */
import { ApiError, call, startChat } from './api.js';
import { applyChunk, emptyAssistantMessage, readChunks } from './chat-stream.js';
import { approveAtProvider, isOpen, renderOrders } from './orders.js';
import { el, renderCart, renderMessage, usd } from './render.js';
import { depositTestUsdc, loadWallet } from './wallet.js';

/**
 * The test page: a single-page client of the whole flow (dev login, onboarding, a test deposit,
 * streamed chat with tool results, cart, checkout, approval, orders, sessions), talking to the
 * gateway with cookies only, and to the stand-ins where the shopper's wallets would act.
 */
const $ = (selector) => document.querySelector(selector);
const state = {
  sessionId: undefined,
  messages: [],
  sending: false,
  sizes: null,
  wallet: null,
  /** Orders approved here whose payment the provider has not confirmed yet. */
  approved: new Set(),
  ordersTimer: undefined,
  walletTimer: undefined,
};

function say(text, isError = false) {
  $('#status').textContent = text;
  $('#status').classList.toggle('error', isError);
}

const failure = (error) =>
  say(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error), true);

function show(section) {
  for (const id of ['login', 'onboarding', 'shop']) $(`#${id}`).hidden = id !== section;
}

async function refresh() {
  let profile;
  try {
    profile = await call('GET', '/api/auth/profile');
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
      $('#who').textContent = '';
      $('#logout').hidden = true;
      return show('login');
    }
    throw error;
  }
  state.sizes = profile.sizes ?? null;
  $('#who').textContent = profile.email;
  $('#logout').hidden = false;
  if (profile.onboardingStep < 3) {
    const step = profile.onboardingStep + 1;
    $('#onboarding-step').textContent = `step ${step} of 3`;
    for (const form of document.querySelectorAll('#onboarding form'))
      form.hidden = Number(form.dataset.step) !== step;
    return show('onboarding');
  }
  show('shop');
  await Promise.all([loadSessions(), loadCart(), showWallet(), loadOrders()]);
}

// ---- chat -------------------------------------------------------------------------------

const actions = {
  savedSizes: () => state.sizes,
  async addToCart(product, size, color, button) {
    button.disabled = true;
    try {
      const { productId, productName, price, image, productUrl, retailer } = product;
      const item = await call('POST', '/api/cart', {
        productId,
        productName,
        price,
        image,
        productUrl,
        retailer,
        ...(size && { size }),
        ...(color && { color }),
      });
      say(`Added ${item.productName} to the cart`);
      await loadCart();
    } catch (error) {
      failure(error);
    } finally {
      button.disabled = false;
    }
  },
};

function renderMessages() {
  const box = $('#messages');
  box.replaceChildren(...state.messages.map((message) => renderMessage(message, actions)));
  box.scrollTop = box.scrollHeight;
}

async function send(text) {
  state.sending = true;
  $('#send').disabled = true;
  const user = { id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text }] };
  const reply = emptyAssistantMessage();
  state.messages.push(user, reply);
  renderMessages();
  try {
    // The server rebuilds the history from the stored session, so the new turn is all it needs.
    const response = await startChat({
      messages: [user],
      ...(state.sessionId && { sessionId: state.sessionId }),
    });
    state.sessionId = response.headers.get('x-session-id') ?? state.sessionId;
    for await (const chunk of readChunks(response.body)) {
      applyChunk(reply, chunk);
      renderMessages();
    }
    say(reply.error ? 'The answer ended with an error' : '');
    if (reply.parts.some((part) => part.type === 'tool-checkout')) await loadOrders();
  } catch (error) {
    reply.error = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
    renderMessages();
    failure(error);
  } finally {
    state.sending = false;
    $('#send').disabled = false;
  }
  await Promise.all([loadSessions(), loadCart()]);
}

// ---- sessions ---------------------------------------------------------------------------

async function loadSessions() {
  const { sessions } = await call('GET', '/api/sessions?limit=50');
  const current = sessions.find((session) => session.id === state.sessionId);
  $('#chat-title').textContent = current?.title ?? (state.sessionId ? 'Untitled chat' : 'New chat');
  $('#session-list').replaceChildren(
    ...sessions.map((session) =>
      el(
        'li',
        { class: session.id === state.sessionId ? 'current' : undefined, 'data-session-id': session.id },
        el(
          'button',
          { type: 'button', class: 'open', onclick: () => openSession(session.id) },
          session.title ?? 'Untitled chat',
        ),
        el(
          'button',
          { type: 'button', class: 'delete', title: 'Delete', onclick: () => deleteSession(session.id) },
          '×',
        ),
      ),
    ),
  );
}

async function openSession(id) {
  const session = await call('GET', `/api/sessions/${id}`);
  state.sessionId = session.id;
  state.messages = session.messages.map(({ id: messageId, role, parts }) => ({ id: messageId, role, parts }));
  renderMessages();
  await loadSessions();
}

async function deleteSession(id) {
  await call('DELETE', `/api/sessions/${id}`);
  if (state.sessionId === id) newChat();
  await loadSessions();
}

function newChat() {
  state.sessionId = undefined;
  state.messages = [];
  renderMessages();
  $('#chat-title').textContent = 'New chat';
}

// ---- cart -------------------------------------------------------------------------------

async function loadCart() {
  const { items } = await call('GET', '/api/cart');
  $('#cart-count').textContent = `(${items.length})`;
  $('#cart-total').textContent = items.length
    ? `Total ${usd(items.reduce((sum, item) => sum + item.price, 0))}`
    : 'Empty';
  $('#cart-items').replaceChildren(
    ...renderCart(items, {
      async remove(item) {
        await call('DELETE', `/api/cart/${item.id}`).catch(failure);
        await loadCart();
      },
      async checkout(item) {
        try {
          const order = await call('POST', '/api/checkout', { cartItemId: item.id });
          $('#checkout-result').replaceChildren(
            el(
              'p',
              {},
              `Order ${order.orderId.slice(0, 8)}… is awaiting your approval: `,
              el('a', { href: `#order-${order.orderId}` }, 'approve it in Orders'),
            ),
          );
          await loadOrders();
        } catch (error) {
          failure(error);
        }
        await loadCart();
      },
    }),
  );
}

// ---- wallet and orders -----------------------------------------------------------------

async function showWallet() {
  const wallet = await loadWallet();
  state.wallet = wallet;
  $('#usdc-balance').textContent = wallet.usdc === null ? 'unavailable' : `${wallet.usdc} USDC`;
  $('#sui-address').textContent = wallet.suiAddress ?? 'not provisioned yet';
  $('#sui-balance').textContent = wallet.suiUsdc === null ? '–' : `${wallet.suiUsdc} USDC`;
  $('#deposit').disabled = !wallet.chain || !wallet.suiAddress;
  // Wallets are provisioned after onboarding, in the background: the panel waits for them.
  clearTimeout(state.walletTimer);
  if (!wallet.suiAddress) state.walletTimer = setTimeout(() => showWallet().catch(failure), 1000);
  return wallet;
}

function depositStep(name, text, digest, failed = false) {
  $('#deposit-steps').append(
    el(
      'li',
      { 'data-step': name, class: failed ? 'failed' : undefined },
      text,
      digest ? el('div', { class: 'digest' }, digest) : undefined,
    ),
  );
}

async function deposit(amount) {
  $('#deposit').disabled = true;
  $('#deposit-steps').replaceChildren();
  try {
    const wallet = state.wallet?.suiAddress ? state.wallet : await showWallet();
    await depositTestUsdc(wallet, amount, depositStep);
    const after = await showWallet();
    depositStep('balance', `New balance: ${after.usdc} USDC at the provider`);
  } catch (error) {
    depositStep(
      'failed',
      error instanceof ApiError ? `${error.code}: ${error.message}` : String(error.message ?? error),
      undefined,
      true,
    );
  } finally {
    $('#deposit').disabled = false;
  }
  await loadOrders();
}

async function loadOrders() {
  clearTimeout(state.ordersTimer);
  const { orders } = await call('GET', '/api/orders?limit=20');
  for (const order of orders) if (order.status !== 'awaiting_approval') state.approved.delete(order.orderId);
  $('#order-list').replaceChildren(
    ...renderOrders(orders, {
      async approve(order, button) {
        button.disabled = true;
        try {
          await approveAtProvider(state.wallet?.providerUrl, order);
          state.approved.add(order.orderId);
          say('Payment approved; the provider pays, ships and delivers');
        } catch (error) {
          failure(error);
          button.disabled = false;
        }
        await loadOrders();
      },
    }),
  );
  // Webhooks move orders on the server; while one is on its way the panel follows it.
  const moving = orders.some(
    (order) => isOpen(order) && (order.status !== 'awaiting_approval' || state.approved.has(order.orderId)),
  );
  if (moving) {
    state.ordersTimer = setTimeout(() => {
      // A paid order's cart item leaves the cart, and the wallet pays for it.
      Promise.all([loadOrders(), showWallet(), loadCart()]).catch(failure);
    }, 1000);
  }
}

// ---- wiring -----------------------------------------------------------------------------

function formValues(form) {
  return Object.fromEntries([...new FormData(form)].filter(([, value]) => value !== ''));
}

function onSubmit(selector, handler) {
  $(selector).addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await handler(event.target);
    } catch (error) {
      failure(error);
    }
  });
}

onSubmit('#login-form', async (form) => {
  await call('POST', '/api/dev/login', formValues(form));
  await refresh();
});
for (const step of [1, 2, 3]) {
  onSubmit(`#step-${step}`, async (form) => {
    await call('POST', `/api/onboarding/step-${step}`, formValues(form));
    await refresh();
  });
}
onSubmit('#deposit-form', async (form) => {
  await deposit(form.elements.amount.value);
});
onSubmit('#chat-form', async (form) => {
  const input = form.elements.text;
  const text = input.value.trim();
  if (!text || state.sending) return;
  input.value = '';
  await send(text);
});
$('#new-chat').addEventListener('click', newChat);
$('#logout').addEventListener('click', async () => {
  await call('POST', '/api/auth/logout');
  clearTimeout(state.ordersTimer);
  clearTimeout(state.walletTimer);
  state.wallet = null;
  $('#deposit-steps').replaceChildren();
  newChat();
  await refresh();
});

refresh().catch(failure);
